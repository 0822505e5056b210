#pragma once

// random: uniformly random feasible points without replacement.

#include "agents/autotune/optimizer.hpp"

namespace warpsmith::autotune
{

class random_search final : public optimizer
{
public:
    random_search(const search_space& space, const optimizer_options& opts) : optimizer(space, opts) {}
    std::string_view name() const override { return "random"; }

private:
    std::optional<suggestion> next() override;
    void on_tell(const point&, double) override {}
};

}  // namespace warpsmith::autotune
