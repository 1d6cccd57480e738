// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "host_guard.h"

#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "steadyflake/error.h"

namespace steadyflake::internal {
namespace {

// sun_path less the leading NUL of an abstract name.
constexpr std::size_t kMaxName = sizeof(sockaddr_un::sun_path) - 1;

// The address of `name` in the abstract namespace, and its length for bind/connect.
socklen_t AbstractAddress(const std::string& name, sockaddr_un* address) {
  std::memset(address, 0, sizeof *address);
  address->sun_family = AF_UNIX;
  std::memcpy(address->sun_path + 1, name.data(), name.size());
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
}

// "pid 1234 (steadyflake gen --server-id 7)", as far as this process may see it.
std::string DescribeHolder(const std::string& name) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return "an unknown process";
  sockaddr_un address;
  const socklen_t length = AbstractAddress(name, &address);
  ucred credentials{};
  socklen_t size = sizeof credentials;
  const bool known = connect(fd, reinterpret_cast<const sockaddr*>(&address), length) == 0 &&
                     getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0 &&
                     credentials.pid > 0;
  close(fd);
  if (!known) return "an unknown process (in another PID namespace, or it is just exiting)";
  std::string text = "pid " + std::to_string(credentials.pid);
  std::ifstream in("/proc/" + std::to_string(credentials.pid) + "/cmdline", std::ios::binary);
  std::string command((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!command.empty() && command.back() == '\0') command.pop_back();
  if (!command.empty()) {
    for (char& c : command) {
      if (c == '\0') c = ' ';
    }
    if (command.size() > 200) command = command.substr(0, 200) + "...";
    text += " (" + command + ")";
  }
  return text;
}

uint64_t Fnv1a64(const std::string& data) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : data) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

}  // namespace

std::string HostGuard::Name(const Layout& layout, uint64_t server_id) {
  const char* variable = std::getenv(kNamespaceVariable);
  const std::string space = variable != nullptr && *variable != '\0' ? variable : "default";
  std::string name = "steadyflake/" + space + "/" + layout.ToString() + "@" +
                     std::to_string(layout.epoch_ms()) + "/" + std::to_string(server_id);
  if (name.size() > kMaxName) {
    // A namespace too long for a socket name: its hash stands in for it.
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(Fnv1a64(space)));
    name = "steadyflake/#" + std::string(hex) + "/" + layout.ToString() + "@" +
           std::to_string(layout.epoch_ms()) + "/" + std::to_string(server_id);
  }
  return name;
}

HostGuard::HostGuard(const Layout& layout, uint64_t server_id) {
  const std::string name = Name(layout, server_id);
  // CLOEXEC: a program this process execs does not keep the guard. A forked child does, as
  // long as it lives (it shares the parent's IDs too; the C ABI refuses to issue there).
  fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) {
    throw Error(Error::Code::kState,
                std::string("cannot create the host guard's socket: ") + std::strerror(errno));
  }
  sockaddr_un address;
  const socklen_t length = AbstractAddress(name, &address);
  if (bind(fd_, reinterpret_cast<const sockaddr*>(&address), length) != 0) {
    const int error = errno;
    close(fd_);
    fd_ = -1;
    if (error == EADDRINUSE) {
      throw Error(Error::Code::kLocked,
                  "server id " + std::to_string(server_id) + " of layout " + layout.ToString() +
                      " is in use on this host by " + DescribeHolder(name) +
                      ", whatever its state folder; stop that process first: two generators "
                      "with one server id would issue the same IDs");
    }
    throw Error(Error::Code::kState,
                "cannot bind the host guard's socket @" + name + ": " + std::strerror(error));
  }
  // Listening lets a loser connect and read the holder's pid (SO_PEERCRED); nothing is ever
  // accepted, and the kernel drops a pending connection when its client closes.
  if (listen(fd_, 4) != 0) {
    const int error = errno;
    close(fd_);
    fd_ = -1;
    throw Error(Error::Code::kState,
                "cannot listen on the host guard's socket @" + name + ": " + std::strerror(error));
  }
}

HostGuard::~HostGuard() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace steadyflake::internal
