#pragma once

// grid: every feasible point once, in a fixed order (an odometer over the dimensions sorted by
// name, the last one moving fastest; values ascending). Points already seen are skipped.

#include "agents/autotune/optimizer.hpp"

namespace warpsmith::autotune
{

class grid_search final : public optimizer
{
public:
    grid_search(const search_space& space, const optimizer_options& opts);
    std::string_view name() const override { return "grid"; }

private:
    std::optional<suggestion> next() override;
    void on_tell(const point&, double) override {}

    point cursor_;
    bool started_ = false;
    bool done_ = false;
};

}  // namespace warpsmith::autotune
