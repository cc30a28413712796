#include "cost_model/cost_model.h"

namespace ktune::cost_model {

CostModel::~CostModel() = default;

}  // namespace ktune::cost_model
