// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// A TCP proxy on 127.0.0.1 between a holder and etcd that can cut the holder off and later
// deliver what it sent meanwhile: a network partition whose packets arrive late, as a
// retransmission does after the partition heals.
//
//   HoldingProxy proxy("127.0.0.1", etcd_port);   // the holder gets proxy.url()
//   proxy.Hold();      // bytes either way are kept, nothing reaches the other side
//   proxy.Release();   // everything kept is delivered, in order; forwarding resumes
//
// A connection the holder closed while its bytes were held (its call timed out) stays open to
// etcd until they are delivered and etcd answers; the answer is counted (LateAnswers) and
// dropped, and the connection closed. One thread, poll(2); bounded by the test's calls.

#ifndef STEADYFLAKE_TESTS_REGISTRY_HOLDING_PROXY_H_
#define STEADYFLAKE_TESTS_REGISTRY_HOLDING_PROXY_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace steadyflake::registry::testing {

class HoldingProxy {
 public:
  // Listens on 127.0.0.1 (a port the kernel picks) and forwards to host:port.
  HoldingProxy(const std::string& host, int port);
  ~HoldingProxy();
  HoldingProxy(const HoldingProxy&) = delete;
  HoldingProxy& operator=(const HoldingProxy&) = delete;

  // "http://127.0.0.1:PORT".
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  void Hold();
  void Release();

  // Bytes the holder sent while held (0: it sent nothing during the partition).
  uint64_t bytes_held() const;
  // Answers etcd gave to requests delivered after their sender had gone, by request path
  // ("/v3/kv/txn"). Waits until there are at least `n` for `path`, or `limit` passed; returns
  // how many there are.
  int WaitLateAnswers(const std::string& path, int n, std::chrono::milliseconds limit);

 private:
  struct Pipe {
    int down = -1;  // the holder's side
    int up = -1;    // etcd's side
    std::string to_up;
    std::string to_down;
    std::string late_path;  // the path of a request delivered after `down` closed
  };

  void Run();
  void Accept();
  // Reads what is readable on `fd` into `into`; false at the end of the stream or an error.
  static bool ReadInto(int fd, std::string& into);
  // Delivers what is kept, unless held; closes pipes that are done. REQUIRES: mu_ held.
  void Flush();
  void Wake();

  int listen_fd_ = -1;
  int port_ = 0;
  int upstream_port_ = 0;
  std::string upstream_host_;
  int wake_[2] = {-1, -1};
  std::vector<Pipe> pipes_;  // the thread's own

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false;                        // GUARDED_BY(mu_)
  bool stopping_ = false;                    // GUARDED_BY(mu_)
  uint64_t bytes_held_ = 0;                  // GUARDED_BY(mu_)
  std::map<std::string, int> late_answers_;  // GUARDED_BY(mu_)
  std::thread thread_;
};

}  // namespace steadyflake::registry::testing

#endif  // STEADYFLAKE_TESTS_REGISTRY_HOLDING_PROXY_H_
