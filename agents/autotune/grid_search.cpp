#include "agents/autotune/grid_search.hpp"

namespace warpsmith::autotune
{

grid_search::grid_search(const search_space& space, const optimizer_options& opts)
    : optimizer(space, opts), cursor_(space.first())
{
}

std::optional<suggestion> grid_search::next()
{
    while (!done_)
    {
        if (started_ && !space_.next(cursor_))
        {
            done_ = true;
            break;
        }
        started_ = true;
        if (fresh(cursor_))
            return suggestion{cursor_, std::nullopt, "grid"};
    }
    return std::nullopt;
}

}  // namespace warpsmith::autotune
