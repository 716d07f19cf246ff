// bankcheck's NVTX injection, through NVTX's own loader: this test program uses nvtx3's C and
// C++ API as a program does, with NVTX_INJECTION64_PATH naming libbankcheck-nvtx.so and a
// recording sink connected before the first NVTX call. No GPU involved.
#include <gtest/gtest.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <nvtx3/nvtx3.hpp>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bankcheck/nvtx/sink.hpp"

namespace {

struct Event {
  Event(std::string k, std::string d, std::string m, std::uint64_t i = 0)
      : kind(std::move(k)), domain(std::move(d)), message(std::move(m)), id(i) {}
  std::string kind;  // push, pop, start, end
  std::string domain, message;
  std::uint64_t id = 0;
  std::thread::id thread;
  bool operator==(const Event& o) const {
    return kind == o.kind && domain == o.domain && message == o.message && id == o.id;
  }
};

std::ostream& operator<<(std::ostream& os, const Event& e) {
  return os << e.kind << "(" << e.domain << ", " << e.message << ", " << e.id << ")";
}

class Recorder : public bankcheck::nvtx::Sink {
 public:
  void push(std::string_view d, std::string_view m) override {
    add({"push", std::string(d), std::string(m)});
  }
  void pop(std::string_view d) override { add({"pop", std::string(d), ""}); }
  void start(std::uint64_t id, std::string_view d, std::string_view m) override {
    add({"start", std::string(d), std::string(m), id});
  }
  void end(std::uint64_t id) override { add({"end", "", "", id}); }
  std::vector<Event> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(events_, {});
  }

 private:
  void add(Event e) {
    e.thread = std::this_thread::get_id();
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back(std::move(e));
  }
  std::mutex mutex_;
  std::vector<Event> events_;
};

Recorder& recorder() {
  static Recorder* r = new Recorder;
  return *r;
}

Event push(std::string d, std::string m) { return {"push", std::move(d), std::move(m)}; }
Event pop(std::string d) { return {"pop", std::move(d), ""}; }

// Before any NVTX call of the process: the variable NVTX reads, and the sink.
class Injection : public ::testing::Environment {
 public:
  void SetUp() override {
    ::setenv("NVTX_INJECTION64_PATH", BANKCHECK_NVTX_LIBRARY, 1);
    ASSERT_EQ(bankcheck::nvtx::connect(recorder(), BANKCHECK_NVTX_LIBRARY), "");
  }
};
const auto* const kInjection = ::testing::AddGlobalTestEnvironment(new Injection);

TEST(Nvtx, PushAndPopNestPerThreadWithNvtxsReturnValues) {
  recorder().take();
  EXPECT_EQ(nvtxRangePushA("step"), 0);
  EXPECT_EQ(nvtxRangePushA("forward"), 1);
  EXPECT_EQ(nvtxRangePop(), 1);
  EXPECT_EQ(nvtxRangePop(), 0);
  EXPECT_LT(nvtxRangePop(), 0);  // nothing open: NVTX's error, and nothing passed on
  EXPECT_EQ(recorder().take(),
            (std::vector<Event>{push("", "step"), push("", "forward"), pop(""), pop("")}));
}

TEST(Nvtx, WideRegisteredAndAttributeMessagesArriveAsUtf8) {
  recorder().take();
  nvtxRangePushW(L"sch\u00e4tzen \u6b65");
  nvtxRangePop();
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = "attributes";
  nvtxRangePushEx(&a);
  nvtxRangePop();
  nvtxDomainHandle_t d = nvtxDomainCreateA("train");
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = nvtxDomainRegisterStringA(d, "registered");
  nvtxDomainRangePushEx(d, &a);
  nvtxDomainRangePop(d);
  a.messageType = NVTX_MESSAGE_UNKNOWN;
  nvtxRangePushEx(&a);
  nvtxRangePop();
  EXPECT_EQ(recorder().take(),
            (std::vector<Event>{push("", "sch\xc3\xa4tzen \xe6\xad\xa5"), pop(""),
                                push("", "attributes"), pop(""), push("train", "registered"),
                                pop("train"), push("", ""), pop("")}));
}

TEST(Nvtx, DomainsAreNamedAndNestSeparately) {
  recorder().take();
  nvtxDomainHandle_t a = nvtxDomainCreateA("data");
  EXPECT_EQ(nvtxDomainCreateA("data"), a);  // one domain per name
  nvtxDomainHandle_t w = nvtxDomainCreateW(L"model");
  nvtxEventAttributes_t e{};
  e.version = NVTX_VERSION;
  e.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  e.messageType = NVTX_MESSAGE_TYPE_ASCII;
  e.message.ascii = "load";
  EXPECT_EQ(nvtxDomainRangePushEx(a, &e), 0);
  e.message.ascii = "layer";
  EXPECT_EQ(nvtxDomainRangePushEx(w, &e), 0);  // levels are per domain
  EXPECT_EQ(nvtxRangePushA("default"), 0);
  EXPECT_EQ(nvtxDomainRangePop(a), 0);
  EXPECT_LT(nvtxDomainRangePop(a), 0);
  nvtxRangePop();
  nvtxDomainRangePop(w);
  EXPECT_EQ(recorder().take(),
            (std::vector<Event>{push("data", "load"), push("model", "layer"), push("", "default"),
                                pop("data"), pop(""), pop("model")}));
}

TEST(Nvtx, StartAndEndRangesHaveUniqueIdsAndMayEndOnAnotherThread) {
  recorder().take();
  const nvtxRangeId_t epoch = nvtxRangeStartA("epoch");
  const nvtxRangeId_t wide = nvtxRangeStartW(L"wide");
  nvtxDomainHandle_t d = nvtxDomainCreateA("io");
  nvtxEventAttributes_t e{};
  e.version = NVTX_VERSION;
  e.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  e.messageType = NVTX_MESSAGE_TYPE_ASCII;
  e.message.ascii = "read";
  const nvtxRangeId_t read = nvtxDomainRangeStartEx(d, &e);
  EXPECT_NE(epoch, 0u);
  EXPECT_EQ((std::set<nvtxRangeId_t>{epoch, wide, read}).size(), 3u);
  std::thread([&] { nvtxRangeEnd(epoch); }).join();
  nvtxDomainRangeEnd(d, read);
  nvtxRangeEnd(wide);
  const std::vector<Event> got = recorder().take();
  ASSERT_EQ(got.size(), 6u);
  EXPECT_EQ(got[0], (Event{"start", "", "epoch", epoch}));
  EXPECT_EQ(got[1], (Event{"start", "", "wide", wide}));
  EXPECT_EQ(got[2], (Event{"start", "io", "read", read}));
  EXPECT_EQ(got[3], (Event{"end", "", "", epoch}));
  EXPECT_NE(got[3].thread, std::this_thread::get_id());
  EXPECT_EQ(got[4], (Event{"end", "", "", read}));
  EXPECT_EQ(got[5], (Event{"end", "", "", wide}));
}

TEST(Nvtx, EachThreadHasItsOwnStack) {
  recorder().take();
  nvtxRangePushA("outer");  // this thread's; the workers' first pushes are at level 0
  std::vector<std::thread> workers;
  std::vector<int> levels(4, -9);
  for (int t = 0; t < 4; ++t)
    workers.emplace_back([t, &levels] {
      const std::string name = "worker " + std::to_string(t);
      for (int i = 0; i < 100; ++i) {
        const int level = nvtxRangePushA(name.c_str());
        if (i == 0) levels[t] = level;
        nvtxRangePop();
      }
    });
  for (auto& w : workers) w.join();
  nvtxRangePop();
  EXPECT_EQ(levels, (std::vector<int>{0, 0, 0, 0}));
  const std::vector<Event> got = recorder().take();
  ASSERT_EQ(got.size(), 2u + 4 * 200);
  // Per thread, pushes and pops alternate and name that thread's range.
  std::map<std::thread::id, std::vector<Event>> by_thread;
  for (const Event& e : got) by_thread[e.thread].push_back(e);
  EXPECT_EQ(by_thread.size(), 5u);
  for (const auto& [thread, events] : by_thread) {
    if (thread == std::this_thread::get_id()) {
      EXPECT_EQ(events, (std::vector<Event>{push("", "outer"), pop("")}));
      continue;
    }
    ASSERT_EQ(events.size(), 200u);
    for (std::size_t i = 0; i < events.size(); ++i)
      EXPECT_EQ(events[i].kind, i % 2 ? "pop" : "push");
    EXPECT_EQ(events[0].message.rfind("worker ", 0), 0u);
  }
}

struct TrainingDomain {
  static constexpr const char* name{"training"};
};

TEST(Nvtx, TheCppApiScopesRanges) {
  recorder().take();
  {
    nvtx3::scoped_range_in<TrainingDomain> step{"step"};
    nvtx3::scoped_range inner{"inner"};
  }
  EXPECT_EQ(recorder().take(), (std::vector<Event>{push("training", "step"), push("", "inner"),
                                                   pop(""), pop("training")}));
}

TEST(Nvtx, ConnectSaysWhatIsWrong) {
  Recorder other;
  EXPECT_NE(
      bankcheck::nvtx::connect(other, "/nonexistent/libbankcheck-nvtx.so").find("cannot load"),
      std::string::npos);
  EXPECT_NE(bankcheck::nvtx::connect(other, "libm.so.6").find("not bankcheck's"),
            std::string::npos);
}

}  // namespace
