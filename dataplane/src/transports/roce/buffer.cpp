#include "transports/roce/buffer.hpp"

#include <cerrno>
#include <utility>

#include "sys/errors.hpp"

namespace spiral::roce {

namespace {

std::string size_text(size_t bytes) {
  return bytes >= (1u << 20) ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes >> 10) + " KiB";
}

}  // namespace

RegisteredBuffer::RegisteredBuffer(ibv_pd* pd, size_t bytes, BufferMemory memory, int access,
                                   const std::string& what) {
  try {
    region_ = memory::allocate({memory, bytes, what, memory::kRegisterNone});
  } catch (const BadInput& e) {
    throw BadInput(std::string("roce: ") + e.what());
  } catch (const RunFailure& e) {
    throw RunFailure(std::string("roce: ") + e.what());
  }
  const size_t mapped = region_->mapped();
  errno = 0;
  mr_.reset(ibv_reg_mr(pd, region_->data(), mapped, access));
  if (!mr_) {
    const int err = errno ? errno : ENOMEM;
    region_.reset();
    if (err == ENOMEM || err == EPERM || err == EAGAIN)
      throw BadInput(errno_message("roce: memory registration of " + size_text(mapped) + " for " + what +
                                       " refused (ibv_reg_mr)",
                                   err) +
                     ": " + memlock_explanation());
    throw RunFailure(errno_message("roce: ibv_reg_mr of " + size_text(mapped) + " for " + what, err));
  }
}

RegisteredBuffer& RegisteredBuffer::operator=(RegisteredBuffer&& other) noexcept {
  if (this != &other) {
    release();
    mr_ = std::move(other.mr_);
    region_ = std::move(other.region_);
  }
  return *this;
}

RegisteredBuffer::~RegisteredBuffer() { release(); }

void RegisteredBuffer::release() noexcept {
  mr_.reset();  // deregister before the pages go
  region_.reset();
}

}  // namespace spiral::roce
