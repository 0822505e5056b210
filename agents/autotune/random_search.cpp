#include "agents/autotune/random_search.hpp"

namespace warpsmith::autotune
{

std::optional<suggestion> random_search::next()
{
    auto p = random_fresh();
    if (!p)
        return std::nullopt;
    return suggestion{std::move(*p), std::nullopt, "random"};
}

}  // namespace warpsmith::autotune
