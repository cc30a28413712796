# The layering of ktune's libraries, bottom first: each library and the libraries its
# sources may include from (its dependencies, transitively). One library per top-level
# folder (ktune_<folder>); `tools` is the binary and the plugin on top of everything.
# Read by KtuneLayering.cmake at configure time (link edges) and by check_layering.cmake
# on every build (include edges). Adding a dependency means adding it here first.
set(KTUNE_LAYER_common "")
set(KTUNE_LAYER_targets common)
set(KTUNE_LAYER_subgraphs common targets)
set(KTUNE_LAYER_scheduler common targets subgraphs)
set(KTUNE_LAYER_tuning_db common)
set(KTUNE_LAYER_measure common targets subgraphs)
set(KTUNE_LAYER_schedule_store common targets subgraphs scheduler tuning_db measure)
set(KTUNE_LAYER_cost_model common targets subgraphs scheduler tuning_db measure schedule_store)
set(KTUNE_LAYER_report common targets subgraphs scheduler tuning_db measure schedule_store cost_model)
set(KTUNE_LAYER_search common targets subgraphs scheduler tuning_db measure schedule_store cost_model)
set(KTUNE_LAYER_cluster common targets subgraphs scheduler tuning_db measure schedule_store cost_model search)
set(KTUNE_LAYER_kernels common targets subgraphs scheduler tuning_db measure schedule_store cost_model search)
set(KTUNE_LAYER_bench common targets subgraphs scheduler tuning_db measure schedule_store cost_model search cluster)
set(KTUNE_LAYER_tools common targets subgraphs scheduler tuning_db measure schedule_store cost_model search
                      cluster kernels bench report)
set(KTUNE_LIBRARY_FOLDERS common targets subgraphs scheduler tuning_db measure schedule_store cost_model report
                          search cluster kernels bench tools)
