#include "harness/core/error.hpp"

namespace warpsmith
{
namespace
{

class category_impl final : public boost::system::error_category
{
public:
    const char* name() const noexcept override { return "warpsmith"; }

    std::string message(int ev) const override
    {
        switch (static_cast<errc>(ev))
        {
            case errc::worker_exited:
                return "worker process exited";
            case errc::worker_protocol:
                return "worker protocol violation";
            case errc::worker_timeout:
                return "worker did not answer in time";
            case errc::nvrtc_failure:
                return "NVRTC failure";
            case errc::http_status:
                return "HTTP error status";
            case errc::http_protocol:
                return "HTTP protocol error";
            case errc::llm_protocol:
                return "model API protocol error";
            case errc::cancelled:
                return "cancelled";
        }
        return "unknown warpsmith error";
    }
};

}  // namespace

const boost::system::error_category& warpsmith_category() noexcept
{
    static const category_impl instance;
    return instance;
}

}  // namespace warpsmith
