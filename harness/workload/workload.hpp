#pragma once

// The workload model (SPEC §2; format documented in docs/workload-format.md): what a kernel must
// compute (signature, reference), on which inputs (cases), within which tolerance, and how the
// initial and tunable kernels are launched.

#include "harness/workload/dtype.hpp"
#include "harness/workload/expression.hpp"
#include "harness/workload/launch_plan.hpp"
#include "harness/workload/tolerance.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpsmith
{

enum class param_kind
{
    scalar,
    buffer,
};

enum class buffer_dir
{
    in,
    out,
    inout,
};

struct param
{
    std::string name;
    param_kind kind = param_kind::scalar;
    dtype type = dtype::int32;
    buffer_dir dir = buffer_dir::in;  ///< Buffers only.
    expression count;                 ///< Buffers only: element count over the case values.
    /// Outputs only: this output's own "tolerance", which wins over the workload's and the default.
    std::optional<tolerance> tol;

    bool is_input() const { return kind == param_kind::buffer && dir != buffer_dir::out; }
    bool is_output() const { return kind == param_kind::buffer && dir != buffer_dir::in; }
};

struct signature
{
    std::string entry;  ///< The reference's entry point; candidates name their own.
    std::vector<param> params;

    const param* find(std::string_view name) const;
};

enum class input_kind
{
    uniform,   ///< lo, hi (defaults -1, 1)
    normal,    ///< mean, stddev (defaults 0, 1)
    randint,   ///< lo, hi inclusive (defaults -8, 8; 0, 8 for unsigned)
    iota,      ///< start, step (defaults 0, 1)
    constant,  ///< value ("const" in JSON)
    file,      ///< path: raw little-endian elements, relative to the workload directory
};

struct input_spec
{
    input_kind kind = input_kind::uniform;
    double lo = -1, hi = 1;
    double mean = 0, stddev = 1;
    double start = 0, step = 1;
    double value = 0;
    std::filesystem::path path;  ///< Absolute after loading.
    std::string sha256;          ///< Of the file's bytes (lower-case hex), taken when loaded.

    /// The default for an unlisted input: uniform [-1,1] for floats, randint [-8,8] ([0,8] unsigned).
    static input_spec default_for(dtype t);
    boost::json::value to_json() const;
};

enum class case_role
{
    correctness,
    performance,
};

struct workload_case
{
    std::string name;
    case_role role = case_role::correctness;
    variables values;                            ///< Integer values: integer scalar params and any
                                                 ///< other size names used by expressions.
    std::map<std::string, double> float_values;  ///< Values of float-typed scalar params (e.g. alpha);
                                                 ///< not visible to expressions.
    std::map<std::string, input_spec> inputs;    ///< Per input buffer; unlisted ones use the default.
    std::uint64_t seed = 0;                      ///< Stated seed: explicit "seed", else derived.

    const input_spec& input_for(const param& p) const;  ///< The listed spec or the default.
};

/// An auxiliary kernel that comes with the workload (reference, initial, tunable).
struct kernel_source
{
    std::string source;          ///< The CUDA C++ text.
    std::string entry;           ///< extern "C" entry point.
    launch_plan launch;          ///< How it is launched.
    std::filesystem::path path;  ///< Where it was read from (empty when inline).
};

/// A vendor library baseline the workload declares ("baselines", docs/workload-format.md): the
/// worker times it next to the candidates with the same protocol (op `baseline`), and the engine
/// reports it in summary.json "baselines" (the FP32 result as `name`, the TF32 one as name_tf32).
struct baseline_spec
{
    std::string name;                        ///< Summary key, e.g. "cublas".
    std::string kind;                        ///< "cublas_sgemm": row-major float32 C = A * B.
    expression m = expression::constant(1);  ///< Rows of A and C, over the case values.
    expression n = expression::constant(1);  ///< Columns of B and C.
    expression k = expression::constant(1);  ///< Columns of A, rows of B.
    std::string a, b, c;                     ///< Buffer parameters: A (m x k), B (k x n), C (m x n).
};

/// The sizes of one GEMM baseline for one case.
struct gemm_shape
{
    std::int64_t m = 0;
    std::int64_t n = 0;
    std::int64_t k = 0;
};

/// Baseline kinds this version knows.
inline constexpr std::string_view baseline_kind_cublas_sgemm = "cublas_sgemm";

/// The least work any kernel must do per case ("roofline", docs/workload-format.md): bytes it must
/// move and floating-point operations it must do, as expressions over the case values. With the
/// device's ceilings this gives each case's physical floor (agents/autotune/roofline.hpp).
struct roofline_work
{
    expression bytes = expression::constant(0);
    expression flops = expression::constant(0);
    std::string note;
};

/// Which files the file names of a workload (reference, initial, tunable, input files) may reach.
enum class file_scope
{
    /// Relative names that stay inside the workload's directory, symbolic links followed: a
    /// workload someone hands over reads no other file of the machine (docs/workload-format.md).
    workload_dir,
    /// The self-contained form the engine writes (what workers receive, a run's own
    /// workload/workload.json, replay requests), which people also hand over: kernels only inline,
    /// input files by absolute path, each with the sha256 of its bytes, which must match. A
    /// workload written elsewhere cannot name a file whose contents its author does not know.
    self_contained,
    /// Names that anchor_file_names already resolved under their own file's scope (a workload
    /// assembled from --signature and --input-cases files): taken as they are.
    resolved,
};

struct workload
{
    std::string name;
    std::string description;
    signature sig;
    /// The tolerance of float outputs without their own ("tolerance"). When the workload gives
    /// none, loading sets it to the default of its first float output's dtype, and gives every
    /// float output of another dtype its own default (default_tolerance), so tolerance_for is
    /// always what docs/workload-format.md ("Tolerances") says. Integer outputs never use it.
    tolerance tol = default_tolerance(dtype::float32);
    std::vector<workload_case> cases;
    kernel_source reference;               ///< Required.
    std::optional<kernel_source> initial;  ///< Optional.
    std::optional<kernel_source> tunable;  ///< Kernel whose -D parameters are the tunables.
    launch_plan launch;                    ///< Default launch plan ("launch").
    std::map<std::string, std::vector<std::int64_t>> tunables;  ///< name -> allowed values.
    std::vector<expression> restrictions;   ///< Each must evaluate non-zero for a valid point.
    std::filesystem::path dir;              ///< Workload directory (for relative paths).
    std::uint64_t seed = 0;                 ///< Workload-level seed ("seed", default 0).
    std::vector<baseline_spec> baselines;   ///< Vendor baselines ("baselines", default none).
    std::optional<roofline_work> roofline;  ///< Least bytes and flops per case ("roofline").

    const workload_case* find_case(std::string_view name) const;
    /// The declared baseline named `name`, or nullptr.
    const baseline_spec* find_baseline(std::string_view name) const;
    /// The GEMM sizes of a baseline for a case (checked when the workload was parsed; user_error
    /// naming the case for a case that is not the workload's).
    gemm_shape baseline_shape(const baseline_spec& b, const workload_case& c) const;
    std::size_t performance_case_count() const;
    /// The tolerance output p is compared with: its own, else (float outputs) the workload's, else
    /// exact (integer outputs).
    tolerance tolerance_for(const param& p) const;

    /// Element count of a buffer parameter for a case; throws user_error naming the case and param.
    std::int64_t buffer_count(const param& p, const workload_case& c) const;
    /// Bytes of a buffer parameter for a case.
    std::int64_t buffer_bytes(const param& p, const workload_case& c) const;

    /// Loads WORKLOAD: a directory holding workload.json, or a .json file. Relative file names
    /// (reference, initial, tunable, input files) resolve against its directory. Every problem
    /// throws user_error naming the file and field: "sgemm/workload.json: cases[2].values: 'K' is
    /// missing (needed by A.count)". A run's own workload/workload.json (the self-contained form,
    /// input files by absolute path) is loaded with file_scope::self_contained.
    static workload load(const std::filesystem::path& path, file_scope scope = file_scope::workload_dir);

    /// Parses an already-read JSON object; dir resolves relative paths; origin names it in errors.
    /// Sources may be given inline as "reference_source"/"initial_source"/"tunable_source" strings
    /// instead of file names (this is how the engine ships a workload to a worker; the default
    /// scope, self_contained, takes nothing else and checks input files' sha256). Unknown keys
    /// are errors everywhere in a workload, so typos never pass silently.
    static workload from_json(const boost::json::value& v,
                              const std::filesystem::path& dir,
                              std::string_view origin,
                              file_scope scope = file_scope::self_contained);

    /// A self-contained JSON form: every source inlined, file inputs as absolute paths. Round-trips
    /// through from_json. This is what workers receive.
    boost::json::value to_json() const;
};

std::string_view to_string(case_role r);
std::string_view to_string(buffer_dir d);
std::string_view to_string(input_kind k);

}  // namespace warpsmith
