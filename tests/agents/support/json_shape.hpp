#pragma once

// A checker for the small subset of JSON Schema that the strict fake OpenAI server's request
// shapes use (tests/agents/support/api-shapes/*.json): "type" (a name or a list of names),
// "properties", "required", "additionalProperties" (false or a schema), "items", "enum", "const",
// "oneOf" (read as "any of", with the alternatives told apart by their "type" or "role" property
// when they have one, so that the error names the right one), "$ref" to "#/$defs/NAME",
// "minimum", "minItems", "maxItems". Keys it does not know ("$comment", "description") are ignored.
//
// The first violation is reported the way the OpenAI API reports a bad request: a message and the
// path of the offending field ("input[2].call_id"), with an error code (unknown_parameter,
// missing_required_parameter, invalid_type, invalid_value).

#include <boost/json/value.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace warpsmith::test
{

struct shape_violation
{
    std::string message;  ///< "Unknown parameter: 'input[0].foo'."
    std::string param;    ///< "input[0].foo"
    std::string code;     ///< "unknown_parameter", "missing_required_parameter", ...
};

class json_shape
{
public:
    explicit json_shape(boost::json::value schema);
    /// Reads a schema file; throws std::runtime_error naming the file when it is not JSON.
    static json_shape load(const std::filesystem::path& file);

    /// The first violation of `v`, or nullopt when it has the shape.
    std::optional<shape_violation> check(const boost::json::value& v) const;

private:
    std::optional<shape_violation> check(const boost::json::value& v,
                                         const boost::json::value& schema,
                                         const std::string& path) const;
    const boost::json::value& resolve(const boost::json::value& schema) const;

    boost::json::value schema_;
};

/// The directory of the request shapes in the source tree (tests/agents/support/api-shapes).
std::filesystem::path api_shapes_dir();

}  // namespace warpsmith::test
