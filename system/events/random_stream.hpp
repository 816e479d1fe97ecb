#pragma once
// A component's random numbers: a small generator (xoshiro256** with splitmix64 seeding)
// whose whole state is four words, so that saving it before every event costs nothing.
#include <array>
#include <cmath>
#include <cstdint>

namespace kausal::des {

class RandomStream {
 public:
  RandomStream() = default;
  // Stream `stream` of seed `seed`: distinct (seed, stream) pairs give unrelated streams.
  RandomStream(std::uint64_t seed, std::uint64_t stream) {
    std::uint64_t x = seed ^ (0x9e3779b97f4a7c15ULL * (stream + 1));
    for (auto& word : s_) word = splitmix(x);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in (0, 1]: never 0, so that log() below is finite.
  double uniform() { return static_cast<double>((next() >> 11) + 1) * 0x1.0p-53; }
  // Exponentially distributed with the given mean (0 gives 0).
  double exponential(double mean) { return mean == 0 ? 0.0 : -mean * std::log(uniform()); }
  // Uniform over 0 .. n-1 (0 < n < 2^53).
  std::uint64_t below(std::uint64_t n) {
    return static_cast<std::uint64_t>(static_cast<double>(next() >> 11) * 0x1.0p-53 *
                                      static_cast<double>(n));
  }

  const std::array<std::uint64_t, 4>& words() const { return s_; }
  void restore(const std::array<std::uint64_t, 4>& words) { s_ = words; }
  friend bool operator==(const RandomStream&, const RandomStream&) = default;

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitmix(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::array<std::uint64_t, 4> s_{1, 2, 3, 4};
};

}  // namespace kausal::des
