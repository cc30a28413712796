#include "measure/internal/aot_allocator.h"

#include <sys/mman.h>

#include <Halide.h>

#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace ktune::measure::internal {
namespace {

constexpr size_t kInitialThreshold = 128 * 1024;          // glibc's M_MMAP_THRESHOLD default
constexpr size_t kMaxDynamicThreshold = 32 * 1024 * 1024;  // glibc's DEFAULT_MMAP_THRESHOLD_MAX
constexpr size_t kTopPad = 128 * 1024;                     // glibc's M_TOP_PAD default
constexpr size_t kPage = 4096;
constexpr size_t kHeader = 128;  // before each block: its mapping; keeps 8 bytes before it readable
constexpr size_t kHeaderOffset = 64;  // the header sits this far before the block, clear of its slack
constexpr size_t kTrailer = 4096;  // after each block: readable bytes past its end (Halide asks for 8)
constexpr size_t kAlignment = 128;  // as Halide's own halide_malloc: aligned vector loads of any width

// Where a large block lives; stored kHeaderOffset bytes before the block.
struct Heap;
struct BlockHeader {
  void* mapping = nullptr;
  size_t mapping_bytes = 0;
  size_t block_bytes = 0;  // the size asked for
  Heap* heap = nullptr;    // a heap block's (below the mmap threshold) heap; null: mapped
  bool small = false;      // from malloc
};
static_assert(sizeof(BlockHeader) + 16 <= kHeaderOffset && kHeaderOffset <= kHeader);

BlockHeader* header_of(void* block) {
  return reinterpret_cast<BlockHeader*>(static_cast<char*>(block) - kHeaderOffset);
}

// A free heap mapping: its size, and how many of its pages at the end were returned to the
// system (they fault in again when the mapping is used).
struct FreeMapping {
  void* mapping = nullptr;
  size_t bytes = 0;
  size_t returned = 0;
};

// One thread's heap (glibc gives each thread an arena of its own): the free mappings it keeps.
struct Heap {
  std::multimap<size_t, FreeMapping> free;  // by size
  size_t free_resident = 0;                 // free bytes still faulted in
};

// glibc's thresholds, process-wide as in glibc, and every thread's heap.
struct Model {
  std::mutex mutex;
  size_t threshold = kInitialThreshold;
  size_t trim_threshold = kInitialThreshold;
  std::vector<std::unique_ptr<Heap>> heaps;  // kept for the process's life, as glibc's arenas
  size_t fresh_maps = 0;
  size_t returned_pages = 0;
};

Model& model() {
  static Model m;
  return m;
}

size_t g_heap_generation = 0;  // bumped by reset_aot_allocator: every thread takes a new heap

// The calling thread's heap; the caller holds the model's mutex.
Heap& this_threads_heap(Model& m) {
  thread_local Heap* heap = nullptr;
  thread_local size_t generation = 0;
  if (!heap || generation != g_heap_generation) {
    m.heaps.push_back(std::make_unique<Heap>());
    heap = m.heaps.back().get();
    generation = g_heap_generation;
  }
  return *heap;
}

size_t page_rounded(size_t bytes) { return (bytes + kPage - 1) / kPage * kPage; }

void* map_fresh(size_t bytes, Model& m) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  ++m.fresh_maps;
  return p;
}

void* block_in(void* mapping, size_t mapping_bytes, size_t size, Heap* heap) {
  void* block = static_cast<char*>(mapping) + kHeader;
  *header_of(block) = BlockHeader{mapping, mapping_bytes, size, heap, false};
  return block;
}

// A heap block: a free mapping of this thread's heap large enough, else a new one.
void* heap_block(size_t size, size_t bytes, Model& m) {
  Heap& heap = this_threads_heap(m);
  auto it = heap.free.lower_bound(bytes);
  if (it != heap.free.end()) {
    const FreeMapping f = it->second;
    heap.free.erase(it);
    heap.free_resident -= f.bytes - f.returned;
    return block_in(f.mapping, f.bytes, size, &heap);
  }
  void* mapping = map_fresh(bytes, m);
  return mapping ? block_in(mapping, bytes, size, &heap) : nullptr;
}

// Once the trim threshold or more lies free in a heap, glibc returns all of it but its top
// pad to the system, in whole pages (a system call, and the pages fault in again when used).
void trim_if_needed(Heap& heap, Model& m) {
  if (heap.free_resident < m.trim_threshold) return;
  size_t excess = (heap.free_resident - kTopPad) / kPage * kPage;
  for (auto it = heap.free.rbegin(); it != heap.free.rend() && excess > 0; ++it) {
    FreeMapping& f = it->second;
    const size_t give = std::min(excess, f.bytes - f.returned);
    if (give == 0) continue;
    madvise(static_cast<char*>(f.mapping) + f.bytes - f.returned - give, give, MADV_DONTNEED);
    f.returned += give;
    heap.free_resident -= give;
    excess -= give;
    m.returned_pages += give / kPage;
  }
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
    *header_of(block) = BlockHeader{raw, 0, size, nullptr, true};
    return block;
  }
  const size_t bytes = page_rounded(size + kHeader + kTrailer);
  Model& m = model();
  std::lock_guard<std::mutex> lock(m.mutex);
  if (size >= m.threshold) {
    void* mapping = map_fresh(bytes, m);
    return mapping ? block_in(mapping, bytes, size, nullptr) : nullptr;
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
  if (!header.heap) {
    munmap(header.mapping, header.mapping_bytes);
    // glibc's dynamic threshold: a freed mapped block up to 32 MiB raises it to its size.
    if (header.block_bytes > m.threshold && header.block_bytes <= kMaxDynamicThreshold) {
      m.threshold = header.block_bytes;
      m.trim_threshold = 2 * header.block_bytes;
    }
    return;
  }
  // The block goes back to the heap it came from, as a chunk goes back to its arena.
  Heap& heap = *header.heap;
  heap.free.emplace(header.mapping_bytes, FreeMapping{header.mapping, header.mapping_bytes, 0});
  heap.free_resident += header.mapping_bytes;
  trim_if_needed(heap, m);
}

void use_aot_allocation(Halide::Pipeline& pipeline) {
  pipeline.jit_handlers().custom_malloc = jit_malloc;
  pipeline.jit_handlers().custom_free = jit_free;
}

AotAllocatorState aot_allocator_state() {
  Model& m = model();
  std::lock_guard<std::mutex> lock(m.mutex);
  AotAllocatorState state{m.threshold, 0, m.fresh_maps, m.returned_pages};
  for (const auto& heap : m.heaps) state.retained_bytes += heap->free_resident;
  return state;
}

void reset_aot_allocator() {
  Model& m = model();
  std::lock_guard<std::mutex> lock(m.mutex);
  for (const auto& heap : m.heaps) {
    for (const auto& [bytes, f] : heap->free) munmap(f.mapping, bytes);
  }
  m.heaps.clear();
  ++g_heap_generation;
  m.fresh_maps = 0;
  m.returned_pages = 0;
  m.threshold = kInitialThreshold;
  m.trim_threshold = kInitialThreshold;
}

}  // namespace ktune::measure::internal
