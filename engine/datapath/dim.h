// SPDX-License-Identifier: GPL-2.0-or-later
// Dynamic interrupt moderation as the kernel's net_dim (lib/dim/net_dim.c, lib/dim/dim.c):
// every DIM_NEVENTS (64) interrupts it compares the rates since the last decision (bytes,
// then packets per ms, then interrupts per ms, a change of more than 10 % counting) and
// steps through five moderation profiles: on while the rate improves, turning back when it
// worsens, parking on the best, and parking "tired" after too many steps. The profiles are
// the kernel's for a timer that restarts on each completion (CQE mode), RX and TX.
#pragma once

#include <array>
#include <cstdint>

namespace ringlab {

struct DimProfile {
    std::uint32_t usec = 0;
    std::uint32_t pkts = 0;
};

inline constexpr int kDimProfiles = 5;
inline constexpr std::array<DimProfile, kDimProfiles> kDimRxProfiles = {
    {{2, 256}, {8, 128}, {16, 64}, {32, 64}, {64, 64}}};
inline constexpr std::array<DimProfile, kDimProfiles> kDimTxProfiles = {
    {{5, 128}, {8, 64}, {16, 32}, {32, 32}, {64, 32}}};
inline constexpr int kDimDefaultProfile = 1;    // NET_DIM_DEF_PROFILE_CQE
inline constexpr std::uint32_t kDimEvents = 64; // DIM_NEVENTS

class NetDim {
  public:
    explicit NetDim(const std::array<DimProfile, kDimProfiles> &profiles) : profiles_(profiles) {}

    // net_dim(): called after each interrupt with running totals. True when the profile
    // changed (the caller applies it; the next measurement starts then).
    bool sample(std::int64_t nowNs, std::uint64_t events, std::uint64_t packets,
                std::uint64_t bytes);
    const DimProfile &profile() const { return profiles_[static_cast<std::size_t>(ix_)]; }
    int profileIndex() const { return ix_; }

  private:
    enum class Tune { ParkingOnTop, ParkingTired, GoingRight, GoingLeft };
    enum class Stats { Worse, Same, Better };
    enum class Step { Stepped, TooTired, OnEdge };
    struct Rates {
        std::uint64_t ppms = 0, bpms = 0, epms = 0;
    };
    struct Start {
        std::int64_t ns = 0;
        std::uint64_t events = 0, packets = 0, bytes = 0;
    };

    static Stats compare(const Rates &cur, const Rates &prev);
    Step step();
    void exitParking();
    bool onTop() const;
    void turn();
    void parkOnTop();
    void parkTired();
    bool decide(const Rates &cur);

    const std::array<DimProfile, kDimProfiles> &profiles_;
    int ix_ = kDimDefaultProfile;
    Tune tune_ = Tune::ParkingOnTop;
    bool measuring_ = false;
    Start start_;
    Rates prev_;
    int stepsLeft_ = 0, stepsRight_ = 0, tired_ = 0;
};

} // namespace ringlab
