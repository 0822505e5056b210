// The include policy (harness/compile/include_policy.hpp): every probe of tests/cheats/includes is
// refused with one line naming the rule, every allowed toolkit header passes and compiles, and the
// lexing cases a line-by-line scan gets wrong. Also the parts of the compile sandbox that need no
// process: the compile worker's environment and secret redaction.

#include "harness/compile/compile_sandbox.hpp"
#include "harness/compile/compile_thread.hpp"
#include "harness/compile/include_policy.hpp"
#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/error.hpp"
#include "harness/core/json_file.hpp"
#include "harness/core/secret_redaction.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

using namespace warpsmith;
namespace fs = std::filesystem;
namespace json = boost::json;

namespace
{

bool contains(const std::string& s, std::string_view part)
{
    return s.find(part) != std::string::npos;
}

fs::path probes_dir()
{
    return test::source_dir() / "tests" / "cheats" / "includes";
}

compile_request request_for(const std::string& source, const std::string& entry)
{
    compile_request r;
    r.source = source;
    r.entry = entry;
    return r;
}

const std::string kernel_tail = "\nextern \"C\" __global__ void k(float* p) { p[threadIdx.x] = 0.0f; }\n";

}  // namespace

BOOST_AUTO_TEST_SUITE(include_policy_suite)

BOOST_AUTO_TEST_CASE(every_probe_of_the_manifest_behaves_as_listed)
{
    const json::value manifest = read_json_file(probes_dir() / "includes.json");
    const std::string entry(manifest.at("entry").as_string());
    const auto& probes = manifest.at("probes").as_array();
    BOOST_TEST(probes.size() >= 9u);
    nvrtc_compiler compiler;
    for (const auto& p : probes)
    {
        const std::string file(p.at("file").as_string());
        const std::string expect(p.at("expect").as_string());
        BOOST_TEST_CONTEXT(file)
        {
            const std::string source = read_text_file(probes_dir() / file);
            const auto why = check_include_policy(source);
            const compile_output out = compiler.compile(request_for(source, entry));
            if (expect == "refused")
            {
                BOOST_TEST_REQUIRE(why.has_value());
                BOOST_TEST(contains(*why, std::string(p.at("rule").as_string())), *why);
                BOOST_TEST(why->find('\n') == std::string::npos);
                BOOST_TEST(why->starts_with("include policy: line "));
                // The compiler refuses it the same way, without running NVRTC (no log at all).
                BOOST_TEST(!out.compiled);
                BOOST_TEST(out.error == *why);
                BOOST_TEST(out.log.empty());
            }
            else
            {
                BOOST_TEST(expect == "compiles");
                BOOST_TEST(!why.has_value(), why.value_or(""));
                BOOST_TEST(out.compiled, out.error << "\n" << out.log);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(the_message_names_no_file)
{
    const auto why = check_include_policy("#include \"/home/user/.env\"\n");
    BOOST_TEST_REQUIRE(why.has_value());
    BOOST_TEST(!contains(*why, ".env"));
    BOOST_TEST(!contains(*why, "/home"));
    BOOST_TEST(contains(*why, "line 1"));
}

BOOST_AUTO_TEST_CASE(each_allowed_header_passes_and_compiles)
{
    std::string all;
    for (const auto& h : allowed_toolkit_headers())
    {
        if (h.back() == '/')
            continue;
        const std::string source = "#include <" + h + ">\n";
        BOOST_TEST(!check_include_policy(source).has_value(), h);
        BOOST_TEST(allowed_toolkit_header(h), h);
        all += source;
    }
    for (const char* h : {"cooperative_groups/reduce.h",
                          "cooperative_groups/memcpy_async.h",
                          "cooperative_groups/scan.h",
                          "cuda/std/cstdint",
                          "cuda/std/type_traits",
                          "cuda/pipeline",
                          "cuda/barrier",
                          "nv/target"})
    {
        const std::string source = std::string("#include <") + h + ">\n";
        BOOST_TEST(!check_include_policy(source).has_value(), h);
        all += source;
    }
    const compile_output out = nvrtc_compiler().compile(request_for(all + kernel_tail, "k"));
    BOOST_TEST(out.compiled, out.error << "\n" << out.log);
}

BOOST_AUTO_TEST_CASE(names_outside_the_toolkit_headers_are_refused)
{
    for (const char* name : {"../../.env",
                             "/etc/hostname",
                             "/proc/self/environ",
                             "cuda/../../../etc/hostname",
                             "cuda/./std/cstdint",
                             "cuda//std/cstdint",
                             ".env",
                             "cuda/.env",
                             "cuda_runtime.h",
                             "cuda.h",
                             "thrust/sort.h",
                             "cub/cub.cuh",
                             " cuda_fp16.h",
                             "cuda_fp16.h ",
                             "cuda/",
                             "cuda",
                             "stdio.h",
                             "cuda\\std",
                             "cooperative_groups/../../x"})
    {
        BOOST_TEST(!allowed_toolkit_header(name), name);
        const auto why = check_include_policy(std::string("#include <") + name + ">\n");
        BOOST_TEST(why.has_value(), name);
    }
}

BOOST_AUTO_TEST_CASE(tricky_sources_are_refused)
{
    const std::vector<std::string> refused{
        "#include \".env\"",
        "  #  include \".env\"",
        "\t#\tinclude\t\".env\"",
        "#include\".env\"",
        "#include/**/\".env\"",
        "#/* comment */include \".env\"",
        "# /* a comment\n that spans lines */ include \".env\"",
        "#include /*\n*/ \".env\"",
        "#\\\ninclude \".env\"",
        "#inc\\\nlude \".env\"",
        "#include \\\n\".env\"",
        "#\\\r\ninclude \".env\"",
        "%:include \".env\"",
        "%:  include <../.env>",
        "?\?=include \".env\"",           // trigraph reading
        "#\\ \ninclude \".env\"",         // a backslash, a space, then the newline (GCC splices)
        "int x;\r#include \".env\"",      // a lone CR ends a line for GCC
        "/* a\n */ #include \".env\"",    // NVRTC takes this as a directive
        "\xEF\xBB\xBF#include \".env\"",  // byte order mark
        "#include <../../.env>",
        "#include </proc/self/environ>",
        "#include <cuda/../../../../etc/hostname>",
        "#define F \".env\"\n#include F",
        "#define F <cuda_fp16.h>\n#include F",
        "#include <cuda_fp16.h",
        "#if 0\n#include \".env\"\n#endif",
        "#include_next <cuda_fp16.h>",
        "#import \"x.h\"",
        "#embed \".env\"",
        "#if __has_include(<cuda_fp16.h>)\n#endif",
        "#if __has_include_next(\"x\")\n#endif",
        "#define H __has_include\n",
        "#define H(x) __has_\\\ninclude(x)\n",
        "_Pragma(\"once\")",
        "#define P _Pragma(\"unroll\")",
        "#pragma GCC dependency \".env\"",
        "#pragma include_alias(\"a.h\", \".env\")",
        "#unknown_directive",
        "#!",
        "const char* s = \"/*\";\n#include \".env\"\n// */",
        "char c = '\"';\n#include \".env\"\n// \"",
        "int x = 1'0'/*';\n#include \".env\"\n// */",
        "const char* s = R\"x( \" /* )x\";\n#include \".env\"\n// */",
        "const char* s = R\"(unterminated",
        "const char* s = u8R\"abc(\n)abc\";\n#include \".env\"",
        // NVRTC ends a raw string at `)` backslash-newline `"`; a backslash or "??" in the body is
        // refused wherever it is.
        "const char* s = R\"(\n)\\\n\";\n#include \".env\"\n//)\";",
        "const char* s = R\"(\n)?\?/\n\";\n#include \".env\"\n//)\";",
        "const char* s = R\"(a\\nb)\";",
        "const char* s = R\"(what?\?)\";",
        "const char* s = R\"(\\u0029\")\";",
        // A #include of anything but a toolkit header is refused wherever it is, comments and
        // strings included: where a lexer and a compiler disagree about where a comment or literal
        // ends, that is where a directive would hide (the sixth review found three such places).
        "// #include \".env\"",
        "/* #include \".env\" */",
        "// a comment continued \\\n#include \".env\"",
        "const char* s = \"#include \\\".env\\\"\";",
        "const char* s = R\"(\n#include \".env\"\n)\";",
        "const char* s = R\"delim(\n)\" #include \".env\"\n)delim\";",
        "/* see %: include <stdio.h> */",
        "// _Pragma in a comment",
        "const char* s = \"__has_include\";",
        // The sixth review's three lexer disagreements: '$' and non-ASCII bytes are no identifier
        // characters to NVRTC; a string literal's suffix is no raw-string prefix; a ' right after a
        // number joins it in NVRTC.
        "int $R\"(\n/*\n)\";\n#unknown_directive\n*/",
        "int \xC3\xA9R\"(\n/*\n)\";\n#unknown_directive\n*/",
        "auto s = \"x\"R\"(\n#unknown_directive\n)\";",
        "auto c = 'a'R\"(\n#unknown_directive\n)\";",
        "int x = 1'+'/*';\n#unknown_directive\n*/",
        // The fourth review: quotes after a number that NVRTC takes into it (1x'', 1e''), and a
        // universal character name inside a number (1\u00C0').
        "#pragma nv_diag_suppress 1x''/*\n#unknown_directive\n*/",
        "int y = 1e''/*;\n#unknown_directive\n*/",
        "#pragma nv_diag_suppress 1\\u00C0' x ' /*\n#unknown_directive\n*/",
        "int z = 1'/* */;",
        // A fifth look: EDG ends a number (and may end a name) before some universal character
        // names, so a quote after one opened a character literal to it; UCNs outside literals are
        // refused.
        "int x = 0x1f'1\\u00b2'1e/*\n#unknown_directive\n*/",
        "\\u00b2R\"(\n/*\n)\";\n#unknown_directive\n*/",
        "int caf\\u00e9 = 1;",
        // libcu++'s own spellings of the operators.
        "#if _CCCL_HAS_INCLUDE(<cuda_fp16.h>)\n#endif",
        "_CCCL_PRAGMA(message(\"x\"))",
        // The third review: "\" CR CR LF is a line splice to NVRTC only; a "/*/" after a '#' and a
        // 65th comment there made the check behind the lexer skip the directive.
        "/* x *\\\r\r\n/\n#inc\\\r\r\nlude \"/tmp/canary.txt\"\n*/",
        "int a = 1;\r\r\n",
        "int a = 1;\rint b = 2;\n",
        "int \x01 a;",
        "int a;\x7f",
        "const char* s = \"#/*/ */include \\\"/tmp/canary.txt\\\"\";",
        "const char* s = \"#/* never closed\";",
        "const char* s = \"#" +
            []
            {
                std::string c;
                for (int i = 0; i < 65; ++i)
                    c += "/**/";
                return c;
            }() +
            "include \\\"/tmp/canary.txt\\\"\";",
    };
    for (const auto& s : refused)
    {
        const auto why = check_include_policy(s + kernel_tail);
        BOOST_TEST(why.has_value(), "not refused: " << s);
        if (why)
            BOOST_TEST(why->find('\n') == std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(ordinary_kernels_pass)
{
    const std::vector<std::string> passing{
        "#include <cuda_fp16.h> // half precision",
        "#include <cuda/std/cstdint> /* libcu++ */",
        "#pragma once",
        "#pragma unroll\n",
        "#pragma nv_diag_suppress 177",
        "#pragma message(\"tile 128\")",
        "#define TILE 32\n#ifdef TILE\n#undef TILE\n#elif 0\n#else\n#endif",
        "#define STR(a) #a\n#define CAT(a, b) a##b\n#define CAT2(a, b) a %:%: b",
        "#error don't",
        "#warning unfinished",
        "#line 10 \"other.cu\"",
        "# 1 \"kernel.cu\"",
        "#",
        "asm volatile(R\"(\n  mov.u32 %0, %%laneid;\n)\" : \"=r\"(lane));",
        "int big = 1'000'000;",
        "float f = 1.5e+3f + 0x1p-3 + .5;",
        "char q = '\\'';",
        "int has_include_count = 0; int include = 1; int Pragma = 2;",
        "// #include <cuda_fp16.h> in a comment is allowed: an allowed header",
        "int a = 1;\r\nint b = 2;\r\n\tint c = 3;\f\v",
        "#/**/include <cuda_fp16.h>",
        "#include /* the toolkit's */ <cuda_bf16.h>",
        "int a = 3 % 2; // no directive: '%' without ':'",
        "const char* s = \"# define is fine, and #if too\";",
        "extern \"C\" __device__ int x; // the word include in a comment",
    };
    for (const auto& s : passing)
    {
        const auto why = check_include_policy(s + kernel_tail);
        BOOST_TEST(!why.has_value(), s << " -> " << why.value_or(""));
    }
}

BOOST_AUTO_TEST_CASE(the_line_number_is_that_of_the_directive)
{
    const auto why = check_include_policy("// one\n// two\n#include \".env\"\n");
    BOOST_TEST_REQUIRE(why.has_value());
    BOOST_TEST(contains(*why, "line 3:"), *why);
}

BOOST_AUTO_TEST_CASE(nothing_after_a_nul_reaches_nvrtc)
{
    std::string source = "extern \"C\" __global__ void k() {}\n";
    source += '\0';
    source += "#include \".env\"\n";
    BOOST_TEST(!check_include_policy(source).has_value());
}

BOOST_AUTO_TEST_CASE(refused_requests_never_reach_the_cache)
{
    test::temp_dir tmp("warpsmith-include-cache");
    nvrtc_compiler compiler(compile_cache(tmp.path()));
    const auto out = compiler.compile(request_for("#include \".env\"" + kernel_tail, "k"));
    BOOST_TEST(!out.compiled);
    BOOST_TEST(!compiler.cache()->lookup(out.key).has_value());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(compile_sandbox_environment_suite)

BOOST_AUTO_TEST_CASE(secret_names)
{
    for (const char* n : {"OPENAI_API_KEY",
                          "OPENAI_BASE_URL",
                          "ANTHROPIC_API_KEY",
                          "AWS_SECRET_ACCESS_KEY",
                          "GITHUB_TOKEN",
                          "HF_TOKEN",
                          "MY_KEY",
                          "DB_PASSWORD",
                          "CLIENT_SECRET",
                          "openai_api_key",
                          "SOME_APIKEY_X"})
        BOOST_TEST(is_secret_variable_name(n), n);
    for (const char* n : {"PATH", "HOME", "CUDA_HOME", "LD_LIBRARY_PATH", "TMPDIR", "KEYBOARD", "LANG"})
        BOOST_TEST(!is_secret_variable_name(n), n);
}

BOOST_AUTO_TEST_CASE(the_compile_worker_environment_holds_no_credential)
{
    register_secret("sk-registered-value-123");
    const std::vector<std::string> current{"PATH=/usr/bin:/bin",
                                           "HOME=/root",
                                           "OPENAI_API_KEY=sk-test-SECRET123",
                                           "OPENAI_BASE_URL=http://127.0.0.1:9/v1",
                                           "GITHUB_TOKEN=ghp_abcdefgh",
                                           "AWS_SECRET_ACCESS_KEY=abcdefghijkl",
                                           "MY_LLM_CREDENTIALS=sk-registered-value-123",
                                           "LLM_CREDS_VAR=whatever-value",
                                           "TMPDIR=/somewhere",
                                           "WARPSMITH_COMPILE_SANDBOX=/elsewhere",
                                           "CUDA_HOME=/usr/local/cuda"};
    const auto env = compile_worker_environment(current, "/tmp/sandbox-x", {"LLM_CREDS_VAR"});
    const std::vector<std::string> expected{"PATH=/usr/bin:/bin",
                                            "HOME=/root",
                                            "CUDA_HOME=/usr/local/cuda",
                                            "TMPDIR=/tmp/sandbox-x",
                                            "WARPSMITH_COMPILE_SANDBOX=/tmp/sandbox-x"};
    BOOST_TEST(env == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(redaction_replaces_every_registered_secret)
{
    register_secret("sk-test-SECRET123");
    register_secret("short");  // Too short to be a key: ignored.
    BOOST_TEST(redact_secrets("OPENAI_API_KEY=sk-test-SECRET123 and sk-test-SECRET123") ==
               "OPENAI_API_KEY=[REDACTED] and [REDACTED]");
    BOOST_TEST(redact_secrets("a short word") == "a short word");
    // Written with JSON escapes, in part or whole (a JSON body quoted unparsed): the same secret.
    BOOST_TEST(redact_secrets(R"({"k": "\u0073k-test-SECRET123", "j": "sk-test-\u0053\u0045CRET123!"})") ==
               R"({"k": "[REDACTED]", "j": "[REDACTED]!"})");
    BOOST_TEST(redact_values(R"(sk-test-SECRET12 \u0073)", {"sk-test-SECRET123"}) ==
               R"(sk-test-SECRET12 \u0073)");
}

BOOST_AUTO_TEST_CASE(redaction_replaces_the_long_parts_a_compiler_names_alone)
{
    // NVRTC reads a key included as code as an expression and names the identifier after its last
    // dash: `identifier "LEAKCANARY1234567890abcdef" is undefined` (sixth review).
    register_secret("sk-proj-FRAGMENT_CANARY1234567890-tail_ABCDEFGHIJKL");
    BOOST_TEST(redact_secrets(R"(kernel.cu(1): error: identifier "tail_ABCDEFGHIJKL" is undefined)") ==
               R"(kernel.cu(1): error: identifier "[REDACTED]" is undefined)");
    BOOST_TEST(redact_secrets("FRAGMENT_CANARY1234567890 and CANARY1234567890 and ABCDEFGHIJKL") ==
               "[REDACTED] and [REDACTED] and [REDACTED]");
    // Short parts stay: "sk", "proj", "tail" are ordinary words.
    BOOST_TEST(redact_secrets("sk proj tail") == "sk proj tail");
    const auto parts = secret_fragments("sk-proj-FRAGMENT_CANARY1234567890-tail_ABCDEFGHIJKL");
    BOOST_TEST(
        parts == (std::vector<std::string>{
                     "ABCDEFGHIJKL", "CANARY1234567890", "FRAGMENT_CANARY1234567890", "tail_ABCDEFGHIJKL"}),
        boost::test_tools::per_element());
    BOOST_TEST(secret_fragments("abcdefghijklmnop").empty());  // the whole secret is no fragment
}

// A server or gateway may echo the key transformed (found by an adversarial review, each reaching
// stderr, the journal and llm/): base64 of "Bearer <key>", the key wrapped over two lines, HTML
// character references, percent-encoding, JSON's \/.
BOOST_AUTO_TEST_CASE(redaction_sees_the_key_encoded_wrapped_or_escaped)
{
    const std::string key = "sk-proj-TESTKEY-abcdef0123456789";
    const auto redacted = [&](const std::string& text) { return redact_values(text, {key}); };
    // base64 at each alignment, standard and URL-safe: what is left cannot hold the key's bytes.
    for (const std::string encoded : {"QmVhcmVyIHNrLXByb2otVEVTVEtFWS1hYmNkZWYwMTIzNDU2Nzg5",
                                      "eHNrLXByb2otVEVTVEtFWS1hYmNkZWYwMTIzNDU2Nzg5",
                                      "c2stcHJvai1URVNUS0VZLWFiY2RlZjAxMjM0NTY3ODk=",
                                      "eHlzay1wcm9qLVRFU1RLRVktYWJjZGVmMDEyMzQ1Njc4OT8-"})
    {
        const std::string out = redacted("we got " + encoded + " back");
        BOOST_TEST(out.find("[REDACTED]") != std::string::npos, out);
        BOOST_TEST(out.size() <= std::string("we got ").size() + 10 + redacted_marker.size() + 8 + 5, out);
    }
    BOOST_TEST(redacted("Bearer sk-proj-TESTKEY-\n   abcdef0123456789.") == "Bearer [REDACTED].");
    BOOST_TEST(redacted("sk&#45;proj&#x2d;TESTKEY&#45;abcdef0123456789") == "[REDACTED]");
    const std::string slashed = "sk-TESTKEY/ab+cd=ef0123456789";
    BOOST_TEST(redact_values("?k=sk-TESTKEY%2Fab%2Bcd%3Def0123456789&x", {slashed}) == "?k=[REDACTED]&x");
    BOOST_TEST(redact_values(R"({"k": "sk\u002DTESTKEY\/ab+cd=ef0123456789"})", {slashed}) ==
               R"({"k": "[REDACTED]"})");
    // A second review's forms: hex (either case), every byte percent-encoded, upper case, HTML line
    // breaks, named character references, zero-width spaces.
    BOOST_TEST(redacted("key 736b2d70726f6a2d544553544b45592d616263646566303132333435363738"
                        "39 end") == "key [REDACTED] end");
    BOOST_TEST(redacted("key 736B2D70726F6A2D544553544B45592D61626364656630313233343536373839") ==
               "key [REDACTED]");
    BOOST_TEST(redacted("%73%6B%2D%70%72%6F%6A%2D%54%45%53%54%4B%45%59%2D%61%62%63%64%65%66%30%31%32%33%34%"
                        "35%36%37%38%39") == "[REDACTED]");
    BOOST_TEST(redacted("SK-PROJ-TESTKEY-ABCDEF0123456789!") == "[REDACTED]!");
    BOOST_TEST(redacted("sk-proj-TEST<br>KEY-abcdef<br/>0123456789") == "[REDACTED]");
    BOOST_TEST(redacted("sk&hyphen;proj&dash;TESTKEY&hyphen;abcdef0123456789") == "[REDACTED]");
    BOOST_TEST(redacted("sk-proj-\xe2\x80\x8bTESTKEY-abc\xc2\xad"
                        "def0123456789") == "[REDACTED]");
    BOOST_TEST(redact_values("sk-TESTKEY%2fab%2bcd%3def0123456789", {slashed}) == "[REDACTED]");
    // Ordinary text stays.
    BOOST_TEST(redacted("sk-proj TESTKEY abcdef") == "sk-proj TESTKEY abcdef");
}

BOOST_AUTO_TEST_CASE(the_sandbox_rules_name_the_toolkit_and_the_writable_directories)
{
    const auto rules = compile_sandbox_rules("/tmp/sandbox-x", fs::path("/tmp/cache-x"));
    const auto has = [](const std::vector<fs::path>& v, const fs::path& p)
    { return std::find(v.begin(), v.end(), p) != v.end(); };
    BOOST_TEST(has(rules.read_write, "/tmp/sandbox-x"));
    BOOST_TEST(has(rules.read_write, "/tmp/cache-x"));
    BOOST_TEST(has(rules.read_write, "/dev/null"));
    BOOST_TEST(has(rules.read, "/etc/ld.so.cache"));
    for (const auto& dir : cuda_include_dirs())
        BOOST_TEST(has(rules.read, dir), dir);
    // Nothing of the user's: no home, no /etc beyond the loader's cache and the time zone, no /proc.
    for (const auto& p : rules.read)
    {
        BOOST_TEST(!p.string().starts_with("/home"), p);
        BOOST_TEST(!p.string().starts_with("/proc"), p);
        BOOST_TEST((p == "/etc/ld.so.cache" || p == "/etc/localtime" || !p.string().starts_with("/etc")), p);
    }
    // The running binary itself, not the directory it sits in (which may hold a project's .env).
    const fs::path self = fs::read_symlink("/proc/self/exe");
    BOOST_TEST(has(rules.read, self));
    BOOST_TEST(!has(rules.read, self.parent_path()));
}

BOOST_AUTO_TEST_CASE(a_compile_thread_compiles_inside_the_sandbox_and_leaves_the_rest_its_files)
{
    test::temp_dir tmp("warpsmith-compile-thread");
    const fs::path secret_file = tmp.path() / ".env";
    write_file_atomic(secret_file, "OPENAI_API_KEY=sk-test-THREAD\n");
    auto thread = std::make_shared<compile_thread>(tmp.path() / "cache");
    const auto readable = [&] { return std::ifstream(secret_file).good(); };
    // Jobs run on the thread and hand back results and exceptions; a job the thread runs itself
    // (a compile that compiles) runs in place.
    BOOST_TEST(thread->run([&] { return thread->on_this_thread(); }));
    BOOST_TEST(!thread->on_this_thread());
    BOOST_TEST(thread->run([&] { return thread->run([] { return 42; }); }) == 42);
    BOOST_CHECK_THROW(thread->run([]() -> int { throw user_error("from the thread"); }), user_error);

    // A kernel that gets past the textual policy (a __has_include spelled by token pasting) and
    // stops at #error when it can open the file.
    nvrtc_compiler compiler;
    compiler.compile_on(thread);
    const std::string probe = "#define PASTE(a, b) a##b\n#if PASTE(__has_, include)(\"" +
                              secret_file.string() + "\")\n#error the compile can read host files\n#endif\n" +
                              kernel_tail;
    BOOST_TEST(!check_include_policy(probe).has_value());
    const compile_output out = compiler.compile(request_for(probe, "k"));
    BOOST_TEST(readable());  // this thread keeps its access
    if (landlock_abi_version() == 0)
    {
        BOOST_TEST_MESSAGE("Landlock unavailable here: the compile thread relies on the include policy");
        BOOST_TEST((thread->outcome().status == sandbox_outcome::state::unavailable));
        return;
    }
    BOOST_TEST((thread->outcome().status == sandbox_outcome::state::applied), thread->outcome().detail);
    BOOST_TEST(out.compiled, out.error << "\n" << out.log);
    BOOST_TEST(!thread->run(readable));
    // The same compile on a thread of its own, outside the sandbox, stops at the #error: the probe
    // works, so the sandbox is what made the difference.
    BOOST_TEST(!nvrtc_compiler().compile(request_for(probe + "// unsandboxed\n", "k")).compiled);
}

BOOST_AUTO_TEST_SUITE_END()
