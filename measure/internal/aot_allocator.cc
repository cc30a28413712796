#include "measure/internal/aot_allocator.h"

#include <sys/mman.h>

#include <Halide.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>

namespace ktune::measure::internal {
namespace {

constexpr size_t kInitialThreshold = 128 * 1024;          // glibc's M_MMAP_THRESHOLD default
constexpr size_t kMaxDynamicThreshold = 32 * 1024 * 1024;  // glibc's DEFAULT_MMAP_THRESHOLD_MAX
constexpr size_t kTopPad = 128 * 1024;                     // glibc's M_TOP_PAD default
constexpr size_t kHeader = 128;  // before each block: its mapping; keeps 8 bytes before it readable
constexpr size_t kHeaderOffset = 64;  // the header sits this far before the block, clear of its slack
constexpr size_t kTrailer = 4096;  // after each block: readable bytes past its end (Halide asks for 8)
constexpr size_t kAlignment = 128;  // as Halide's own halide_malloc: aligned vector loads of any width

// Where a large block lives; stored in the kHeader bytes before the block.
struct BlockHeader {
  void* mapping = nullptr;
  size_t mapping_bytes = 0;
  size_t block_bytes = 0;  // the size asked for
  bool from_heap = false;  // a "heap" block (below the threshold) rather than a mapped one
  bool small = false;      // from malloc
};
static_assert(sizeof(BlockHeader) + 16 <= kHeaderOffset && kHeaderOffset <= kHeader);

BlockHeader* header_of(void* block) {
  return reinterpret_cast<BlockHeader*>(static_cast<char*>(block) - kHeaderOffset);
}

// glibc's policy for large blocks, in one process-wide state.
struct Model {
  std::mutex mutex;
  size_t threshold = kInitialThreshold;
  size_t trim_threshold = kInitialThreshold;
  std::multimap<size_t, void*> retained;  // free "heap" mappings by size, kept until a trim
  size_t retained_bytes = 0;
  size_t fresh_maps = 0;
};

Model& model() {
  static Model m;
  return m;
}

size_t page_rounded(size_t bytes) {
  const size_t page = 4096;
  return (bytes + page - 1) / page * page;
}

void* map_fresh(size_t bytes, Model& m) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  ++m.fresh_maps;
  return p;
}

void* block_in(void* mapping, size_t mapping_bytes, size_t size, bool from_heap) {
  void* block = static_cast<char*>(mapping) + kHeader;
  *header_of(block) = BlockHeader{mapping, mapping_bytes, size, from_heap, false};
  return block;
}

// A heap block: a retained mapping large enough (its pages already faulted in), else a new one.
void* heap_block(size_t size, size_t bytes, Model& m) {
  auto it = m.retained.lower_bound(bytes);
  if (it != m.retained.end()) {
    const size_t have = it->first;
    void* mapping = it->second;
    m.retained.erase(it);
    m.retained_bytes -= have;
    return block_in(mapping, have, size, true);
  }
  void* mapping = map_fresh(bytes, m);
  return mapping ? block_in(mapping, bytes, size, true) : nullptr;
}

// glibc trims the top of the heap once more than the trim threshold lies free there.
void trim_if_needed(Model& m) {
  if (m.retained_bytes + kTopPad <= m.trim_threshold) return;
  for (const auto& [bytes, mapping] : m.retained) munmap(mapping, bytes);
  m.retained.clear();
  m.retained_bytes = 0;
}

void* jit_malloc(Halide::JITUserContext*, size_t size) { return aot_malloc(size); }
void jit_free(Halide::JITUserContext*, void* block) { aot_free(block); }

}  // namespace

void* aot_malloc(size_t size) {
  if (size < kMinModelledBytes) {
    void* raw = std::malloc(size + kHeader + kAlignment + kTrailer);
    if (!raw) return nullptr;
    const uintptr_t aligned = (reinterpret_cast<uintptr_t>(raw) + kHeader + kAlignment - 1) / kAlignment * kAlignment;
    void* block = reinterpret_cast<void*>(aligned);
    *header_of(block) = BlockHeader{raw, 0, size, false, true};
    return block;
  }
  const size_t bytes = page_rounded(size + kHeader + kTrailer);
  Model& m = model();
  std::lock_guard<std::mutex> lock(m.mutex);
  if (size >= m.threshold) {
    void* mapping = map_fresh(bytes, m);
    return mapping ? block_in(mapping, bytes, size, false) : nullptr;
  }
  return heap_block(size, bytes, m);
}

void aot_free(void* block) {
  if (!block) return;
  const BlockHeader header = *header_of(block);
  if (header.small) {
    std::free(header.mapping);
    return;
  }
  Model& m = model();
  std::lock_guard<std::mutex> lock(m.mutex);
  if (!header.from_heap) {
    munmap(header.mapping, header.mapping_bytes);
    // glibc's dynamic threshold: a freed mapped block up to 32 MiB raises it to its size.
    if (header.block_bytes > m.threshold && header.block_bytes <= kMaxDynamicThreshold) {
      m.threshold = header.block_bytes;
      m.trim_threshold = 2 * header.block_bytes;
    }
    return;
  }
  m.retained.emplace(header.mapping_bytes, header.mapping);
  m.retained_bytes += header.mapping_bytes;
  trim_if_needed(m);
}

void use_aot_allocation(Halide::Pipeline& pipeline) {
  pipeline.jit_handlers().custom_malloc = jit_malloc;
  pipeline.jit_handlers().custom_free = jit_free;
}

AotAllocatorState aot_allocator_state() {
  Model& m = model();
  std::lock_guard<std::mutex> lock(m.mutex);
  return {m.threshold, m.retained_bytes, m.fresh_maps};
}

void reset_aot_allocator() {
  Model& m = model();
  std::lock_guard<std::mutex> lock(m.mutex);
  for (const auto& [bytes, mapping] : m.retained) munmap(mapping, bytes);
  m.retained.clear();
  m.retained_bytes = 0;
  m.fresh_maps = 0;
  m.threshold = kInitialThreshold;
  m.trim_threshold = kInitialThreshold;
}

}  // namespace ktune::measure::internal
