// Links the installed engine and checks the basics: two IDs increase and decode to their
// server id. Exit status 0 when all is well, 1 otherwise.

#include <cstdio>
#include <exception>

#include "steadyflake/steadyflake.h"

int main() {
  try {
    steadyflake::Generator gen(steadyflake::Generator::Options{
        .server_id = 7, .ticker = steadyflake::Generator::Ticker::kManual});
    const steadyflake::Id first = gen.next();
    const steadyflake::Id second = gen.next();
    if (second <= first) {
      std::fprintf(stderr, "consumer: IDs do not increase: %lld then %lld\n",
                   static_cast<long long>(first), static_cast<long long>(second));
      return 1;
    }
    const steadyflake::DecodedId decoded = gen.layout().Decode(second);
    if (decoded.server_id != 7) {
      std::fprintf(stderr, "consumer: ID %lld decodes to server id %llu, not 7\n",
                   static_cast<long long>(second),
                   static_cast<unsigned long long>(decoded.server_id));
      return 1;
    }
    std::printf("consumer: steadyflake %s: %lld < %lld, server id %llu\n", STEADYFLAKE_VERSION,
                static_cast<long long>(first), static_cast<long long>(second),
                static_cast<unsigned long long>(decoded.server_id));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
