// The answer to the CUDA runtime's check of the driver it runs on (export table
// d4082055-bde6-704b-8d34-ba123c66e1f2, slot 1): the runtime asks three times while it
// starts, and refuses to go on ("integrity checks failed", cudaErrorIntegrityCheckFailed)
// unless each answer is the one NVIDIA's driver gives.
//
// For codes whose last decimal digit is 0 or 1 the answer is a fixed 16-byte value; for the
// others it is HMAC-MD2 (RFC 2104 over RFC 1319, 16-byte blocks) under a fixed key, of the
// versions, the process and thread, the addresses of two export tables and of the answering
// function, the runtime's timestamp, and per device its UUID and PCI location. Worked out from
// public descriptions of this interface and checked against CUDA 13.0's static and shared
// runtime, cuBLAS and cuBLASLt (tests/driver: every program there starts only if it is right).
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace bankcheck::runtime {

// MD2 (RFC 1319) of the bytes fed so far.
class Md2 {
 public:
  void update(std::span<const std::uint8_t> bytes);
  std::array<std::uint8_t, 16> digest();  // pads and ends the message

 private:
  void block(const std::uint8_t* b);
  std::array<std::uint8_t, 48> x_{};
  std::array<std::uint8_t, 16> checksum_{};
  std::array<std::uint8_t, 16> pending_{};
  unsigned count_ = 0;
};

struct IntegrityDevice {
  std::array<std::uint8_t, 16> uuid{};
  std::uint32_t pci_domain = 0, pci_bus = 0, pci_device = 0;
};

struct IntegrityQuestion {
  std::uint32_t driver_version = 0;       // what cuDriverGetVersion answers
  std::uint32_t code = 0;                 // the runtime's first argument (13000, 13001, 13002)
  std::uint64_t timestamp = 0;            // its second
  const void* runtime_table = nullptr;    // the 6bd5fb6c export table
  const void* integrity_table = nullptr;  // the d4082055 export table
  const void* function = nullptr;         // the slot that answers
  std::uint32_t process = 0, thread = 0;  // getpid(), pthread_self() truncated
  std::span<const IntegrityDevice> devices;
};

std::array<std::uint8_t, 16> integrity_answer(const IntegrityQuestion& q);

}  // namespace bankcheck::runtime
