// Boost.JSON's implementation, compiled exactly once for the whole project (header-only mode,
// see ../shared STACK.md §7.8); no target links libboost_json.
#include <boost/json/src.hpp>
