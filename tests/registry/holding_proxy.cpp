// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "holding_proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace steadyflake::registry::testing {
namespace {

[[noreturn]] void Fail(const std::string& what) {
  throw std::runtime_error("holding proxy: " + what + " failed");
}

void CloseFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Sends all of `bytes`; false when the peer is gone.
bool SendAll(int fd, const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

// "/v3/kv/txn" from "POST /v3/kv/txn HTTP/1.1...", or "?".
std::string PathOf(const std::string& request) {
  const std::size_t start = request.find(' ');
  const std::size_t end = start == std::string::npos ? start : request.find(' ', start + 1);
  if (end == std::string::npos) return "?";
  return request.substr(start + 1, end - start - 1);
}

}  // namespace

HoldingProxy::HoldingProxy(const std::string& host, int port)
    : upstream_port_(port), upstream_host_(host) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  if (listen_fd_ < 0 ||
      ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listen_fd_, 64) != 0) {
    Fail("listening on 127.0.0.1");
  }
  socklen_t size = sizeof address;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &size);
  port_ = ntohs(address.sin_port);
  if (::pipe2(wake_, O_CLOEXEC) != 0) Fail("pipe2");
  thread_ = std::thread([this] { Run(); });
}

HoldingProxy::~HoldingProxy() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  Wake();
  thread_.join();
  for (Pipe& pipe : pipes_) {
    CloseFd(pipe.down);
    CloseFd(pipe.up);
  }
  CloseFd(listen_fd_);
  CloseFd(wake_[0]);
  CloseFd(wake_[1]);
}

void HoldingProxy::Hold() {
  std::lock_guard<std::mutex> lock(mu_);
  held_ = true;
}

void HoldingProxy::Release() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    held_ = false;
  }
  Wake();
}

uint64_t HoldingProxy::bytes_held() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_held_;
}

int HoldingProxy::WaitLateAnswers(const std::string& path, int n, std::chrono::milliseconds limit) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, limit, [&] { return late_answers_[path] >= n; });
  return late_answers_[path];
}

void HoldingProxy::Wake() {
  const char byte = 0;
  [[maybe_unused]] const ssize_t n = ::write(wake_[1], &byte, 1);
}

void HoldingProxy::Accept() {
  Pipe pipe;
  pipe.down = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (pipe.down < 0) return;
  pipe.up = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(upstream_port_));
  ::inet_pton(AF_INET, upstream_host_.c_str(), &address.sin_addr);
  if (pipe.up < 0 || ::connect(pipe.up, reinterpret_cast<sockaddr*>(&address), sizeof address)) {
    CloseFd(pipe.down);
    CloseFd(pipe.up);
    return;
  }
  const int one = 1;
  ::setsockopt(pipe.up, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  ::setsockopt(pipe.down, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  pipes_.push_back(std::move(pipe));
}

bool HoldingProxy::ReadInto(int fd, std::string& into) {
  char buffer[16384];
  const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
  if (n <= 0) return false;
  into.append(buffer, static_cast<std::size_t>(n));
  return true;
}

void HoldingProxy::Flush() {
  for (Pipe& pipe : pipes_) {
    if (!held_ && !pipe.to_up.empty() && pipe.up >= 0) {
      // Delivered after the holder gave up on it: a late request, its answer awaited.
      if (pipe.down < 0) pipe.late_path = PathOf(pipe.to_up);
      if (!SendAll(pipe.up, pipe.to_up)) CloseFd(pipe.up);
      pipe.to_up.clear();
    }
    if (!held_ && !pipe.to_down.empty() && pipe.down >= 0) {
      if (!SendAll(pipe.down, pipe.to_down)) CloseFd(pipe.down);
      pipe.to_down.clear();
    }
    const bool done_down = pipe.down < 0 && pipe.to_up.empty() && pipe.late_path.empty();
    if (pipe.up < 0 || (done_down && !held_)) {
      CloseFd(pipe.up);
      CloseFd(pipe.down);
    }
  }
  std::erase_if(pipes_, [](const Pipe& pipe) { return pipe.up < 0 && pipe.down < 0; });
}

void HoldingProxy::Run() {
  for (;;) {
    std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    for (const Pipe& pipe : pipes_) {
      fds.push_back({pipe.down, static_cast<short>(pipe.down >= 0 ? POLLIN : 0), 0});
      fds.push_back({pipe.up, static_cast<short>(pipe.up >= 0 ? POLLIN : 0), 0});
    }
    if (::poll(fds.data(), fds.size(), -1) < 0) continue;
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    if (fds[1].revents) {
      char bytes[64];
      [[maybe_unused]] const ssize_t n = ::read(wake_[0], bytes, sizeof bytes);
    }
    const std::size_t known = pipes_.size();
    for (std::size_t i = 0; i < known; ++i) {
      Pipe& pipe = pipes_[i];
      if (pipe.down >= 0 && fds[2 + 2 * i].revents) {
        const std::size_t before = pipe.to_up.size();
        if (!ReadInto(pipe.down, pipe.to_up)) CloseFd(pipe.down);
        if (held_) bytes_held_ += pipe.to_up.size() - before;
      }
      if (pipe.up >= 0 && fds[3 + 2 * i].revents) {
        std::string answer;
        const bool open = ReadInto(pipe.up, answer);
        if (pipe.down >= 0) {
          pipe.to_down += answer;
        } else if (!pipe.late_path.empty() && !answer.empty()) {
          ++late_answers_[pipe.late_path];
          pipe.late_path.clear();
          cv_.notify_all();
        }
        if (!open) CloseFd(pipe.up);
      }
    }
    if (fds[0].revents) Accept();
    Flush();
  }
}

}  // namespace steadyflake::registry::testing
