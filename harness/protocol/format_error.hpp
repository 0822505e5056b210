#pragma once

// The error of a protocol message or record that does not have the documented shape
// (docs/worker-protocol.md). The protocol's from_json functions read with the strict JSON reader
// (harness/json/json_reader.hpp, json_style::record; timing options as a request) and throw this in
// place of its json_error, so that a caller can tell a malformed protocol message from other
// problems while still reading where it is ("cases[1].timing.median_us: must be a number, got
// \"fast\"").

#include "harness/json/json_location.hpp"

namespace warpsmith::protocol
{

class format_error : public json_error
{
public:
    explicit format_error(const json_error& e) : json_error(e) {}
};

}  // namespace warpsmith::protocol
