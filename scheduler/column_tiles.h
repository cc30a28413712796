// Strips walked in column tiles: a strip's rows split into tiles of a few vectors, each tile
// walked down the strip with the strip's windows stored per tile. On rows of many vectors the
// windows of a whole strip's width outgrow L1 (a running maximum's 2048-pixel rows keep 8 KiB
// per window row); per tile of 256 pixels they stay in it, for a halo of a few columns more.
#pragma once

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// Vectors per column tile, and the fewest tiles a strip's row must hold to be tiled.
inline constexpr int64_t kColumnTileVectors = 16;
inline constexpr int64_t kMinColumnTiles = 4;

// Rewrites each strip leader of `schedule` (apply_image_strips: order x_i, x_o, y_i, y_o with
// y_o parallel, no channel loops) whose rows hold kMinColumnTiles tiles or more: its vector
// loop is split again into tiles, the tile loop goes between the rows and the strips, and
// each window it hosts is stored per tile, its tails rounded up (a shifted tail would reach
// outside a tile's reads). Returns whether anything changed.
bool tile_strip_columns(const Analysis& analysis, Schedule& schedule);

}  // namespace ktune::scheduler
