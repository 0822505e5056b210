// Boost's networking implementation code (Asio, Asio.SSL, Beast), compiled exactly once for the
// whole project: BOOST_ASIO_SEPARATE_COMPILATION and BOOST_BEAST_SEPARATE_COMPILATION are defined
// project-wide in the top-level CMakeLists.txt. Boost.JSON lives in boost_json_impl.cpp so that
// programs which need no networking (the worker) do not pull in OpenSSL-backed code.
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
