#pragma once
// Owning handles for ibverbs objects: each released exactly once, in reverse order of creation
// when they are members declared in creation order.
#include <infiniband/verbs.h>

#include <memory>

namespace spiral::roce {

template <typename T, int (*Release)(T*)>
struct VerbsRelease {
  void operator()(T* p) const noexcept {
    if (p) Release(p);
  }
};

using DeviceList = std::unique_ptr<ibv_device*, decltype([](ibv_device** l) { ibv_free_device_list(l); })>;
using Context = std::unique_ptr<ibv_context, VerbsRelease<ibv_context, ibv_close_device>>;
using ProtectionDomain = std::unique_ptr<ibv_pd, VerbsRelease<ibv_pd, ibv_dealloc_pd>>;
using MemoryRegion = std::unique_ptr<ibv_mr, VerbsRelease<ibv_mr, ibv_dereg_mr>>;
using CompletionChannel = std::unique_ptr<ibv_comp_channel, VerbsRelease<ibv_comp_channel, ibv_destroy_comp_channel>>;
using CompletionQueue = std::unique_ptr<ibv_cq, VerbsRelease<ibv_cq, ibv_destroy_cq>>;
using QueuePair = std::unique_ptr<ibv_qp, VerbsRelease<ibv_qp, ibv_destroy_qp>>;

}  // namespace spiral::roce
