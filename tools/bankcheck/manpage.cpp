// The manual page: its synopsis, commands and options from the CLI11 App (docgen.hpp), and
// the prose CLI11 does not hold, written here once.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <sstream>

#include "bankcheck/install_dirs.hpp"
#include "bankcheck/version.hpp"
#include "docgen.hpp"

namespace bankcheck::tools {

namespace {

// ---- the prose (roff): NAME and DESCRIPTION before the commands, the rest after them.
// @DOCDIR@, @CUDADIR@ and @COMPLETION@ are the installed paths.

constexpr const char* kName =
    R"(bankcheck \- find, explain and fix shared-memory bank conflicts in CUDA kernels, without a GPU
)";

constexpr const char* kDescription = R"(.B bankcheck
counts the shared-memory bank conflicts of CUDA kernels the way the hardware counts them:
wavefronts per request (passes of the shared-memory pipeline), the ideal (the phases of the
request that have an active lane), the excess (wavefronts minus the ideal) and the N-way
degree, with a picture of which lanes collide in which bank.
Global loads and stores are counted in 32-byte sectors against their ideal.
.PP
.B check
and
.B fix
compile the kernel with
.BR nvcc (1),
run its thread blocks (CTAs) in a CPU emulator and count the shared requests the cubin's SASS
issues (ptxas run on the same PTX;
.B \-\-ptx\-level
counts the PTX's own);
.B run
runs a whole program over bankcheck's own CUDA driver.
No GPU is needed.
.PP
The per-line wavefronts and ideal equal Nsight Compute's per-instruction source counters
("L1 Wavefronts Shared" and "L1 Wavefronts Shared Ideal"), so the excess is their difference.
Nsight Compute's kernel-level
.I l1tex__data_bank_conflicts_pipe_lsu_mem_shared
counter equals the excess only for launches of single requests: on whole kernels it also
counts other L1 traffic (a conflict-free kernel shows some), and it counts a CAS conflict
once per extra round where the round costs two wavefronts.
)";

constexpr const char* kExitStatus = R"(.TP
.B 0
Done
.RB ( run :
the program's own exit status).
.TP
.B 1
A
.B \-\-fail\-on
threshold was crossed (after the report;
.BR run :
and the program succeeded).
.TP
.B 2
Bad input, an unsupported construct, an nvcc or emulation error, a refused
.BR "fix \-\-apply" ,
or (occupancy) a configuration that cannot launch.
The message on standard error says what and where
.RB ( "bankcheck: error: " .\|.\|.).
.TP
.B 128+N
.BR run :
the program was killed by signal
.IR N .
)";

constexpr const char* kEnvironment = R"(.TP
.B PATH
Where
.B nvcc
is looked for without
.BR \-\-nvcc ;
.B CUDA_HOME
and
.B CUDA_PATH
are tried next, then
.IR /usr/local/cuda/bin/nvcc .
.TP
.BR NO_COLOR ", " TERM
.B \-\-color auto
colours nothing when
.B NO_COLOR
is set or
.B TERM
is
.BR dumb .
.TP
.B TMPDIR
Where nvcc's temporary files go (inside a private directory bankcheck removes), and
.BR run 's
job directory (the processes' parts of the report).
.TP
.B BANKCHECK_CUDA_DIR
.BR run :
the directory of bankcheck's
.I libcuda.so.1
(default: beside the executable,
.IR @CUDADIR@ ).
.TP
.B BANKCHECK_RUN_AGENT_DIR
.BR run :
the directory of bankcheck's run agent
.I libbankcheck-run.so
(default: beside the executable).
.TP
.B BANKCHECK_NVTX_DIR
.BR "run \-\-nvtx\-include" :
the directory of bankcheck's NVTX injection library
.I libbankcheck-nvtx.so
(default: beside the executable).
.TP
.B BANKCHECK_SANITIZER_DIR
.BR "run \-\-backend gpu" :
the toolkit's compute-sanitizer directory (default: beside the nvcc on
.BR PATH ,
else
.IR /usr/local/cuda ).
)";

constexpr const char* kFiles = R"(.TP
.I @DOCDIR@/
The documentation (check.md, fix.md, json.md, reports.md, limits.md, .\|.\|.) and the JSON
Schemas of the reports
.RI ( schema/*.schema.json ).
.TP
.I @CUDADIR@/libcuda.so.1
bankcheck's own CUDA driver, on which
.B run
runs the program's CUDA runtime and its kernels on the CPU.
.TP
.I @COMPLETION@
Completion of subcommands, options and their values in
.BR bash (1).
)";

constexpr const char* kExamples = R"(.nf
bankcheck check app.cu
bankcheck check k.cu \-\-kernel reduce \-\-grid 4096 \-\-block 256 \-\-arg n=1048576
bankcheck check \-p build
bankcheck check k.cu \-\-format html \-o k.html
bankcheck check k.cu \-\-fail\-on \(aqways>1\(aq
bankcheck fix transpose.cu \-\-kernel transposeShared \-\-apply
bankcheck run ./app \-\-size 4096
bankcheck fix \-\-apply ./app \-\-size 4096
bankcheck explain \-\-decl \(aqfloat tile[32][32]\(aq \-\-expr \(aqtile[threadIdx.x][threadIdx.y]\(aq \-\-block 32,32
bankcheck occupancy \-\-arch sm_90 \-\-threads 128 \-\-regs 32 \-\-smem 16896
.fi
)";

constexpr const char* kSeeAlso = R"(.BR nvcc (1),
.BR ncu (1),
.BR compute\-sanitizer (1);
the documentation in
.IR @DOCDIR@ .
)";

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

std::string paths(std::string s) {
  s = replace_all(s, "@DOCDIR@", BANKCHECK_DOCDIR);
  s = replace_all(s, "@CUDADIR@", BANKCHECK_LIBDIR "/bankcheck-cuda");
  return replace_all(s, "@COMPLETION@", BANKCHECK_DATADIR "/bash-completion/completions/bankcheck");
}

// Text as roff reads it literally: backslashes and hyphens escaped, a line that would start
// with a control character protected.
std::string roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
    line_start = c == '\n';
  }
  return out;
}

// CLI11's help text (paragraphs, indented lines as examples) as roff: a blank line starts a
// paragraph, a run of indented lines is shown as typed.
std::string paragraphs(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  bool verbatim = false;
  for (std::string line; std::getline(in, line);) {
    const bool indented = line.starts_with("  ");
    if (verbatim && !indented) {
      out += ".fi\n.RE\n";
      verbatim = false;
    }
    if (line.find_first_not_of(' ') == std::string::npos) {
      out += ".PP\n";
    } else if (indented) {
      if (!verbatim) out += ".RS\n.nf\n";
      verbatim = true;
      out += roff(line.substr(2)) + "\n";
    } else {
      out += roff(line) + "\n";
    }
  }
  if (verbatim) out += ".fi\n.RE\n";
  return out;
}

// "\-\-format" "text|json" as the roff of an option's names and argument.
std::string option_head(const OptionDoc& o) {
  if (o.positional) {  // FILES .\|.\|.
    std::string name = roff(o.names.front());
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return "\\fI" + name + "\\fR" + (o.repeatable ? " .\\|.\\|." : "");
  }
  std::string head;
  for (const std::string& n : o.names) head += (head.empty() ? "\\fB" : "\\fR, \\fB") + roff(n);
  head += "\\fR";
  if (o.takes_value) {
    std::string arg;
    for (const std::string& c : o.choices) arg += (arg.empty() ? "" : "\\fR|\\fI") + roff(c);
    head += " \\fI" + (arg.empty() ? roff(o.type.empty() ? "VALUE" : o.type) : arg) + "\\fR";
    if (o.repeatable) head += " .\\|.\\|.";
  }
  return head;
}

std::string synopsis(const CLI::App& sub) {
  std::string s = ".B bankcheck " + roff(sub.get_name()) + "\n";
  bool optional_options = false;
  std::string positionals;
  for (const OptionDoc& o : visible_options(sub)) {
    if (o.positional) {
      const std::string item = option_head(o);
      positionals += (o.required ? item : "[" + item + "]") + "\n";
    } else if (o.required) {
      s += option_head(o) + "\n";
    } else {
      optional_options = true;
    }
  }
  if (optional_options) s += "[\\fIOPTIONS\\fR]\n";
  return s + positionals;
}

std::string options(const CLI::App& sub) {
  std::string s;
  for (const OptionDoc& o : visible_options(sub)) {
    s += ".TP\n" + option_head(o) + "\n" + roff(o.description);
    if (!o.default_value.empty() && o.description.find("default") == std::string::npos)
      s += " (default: " + roff(o.default_value) + ")";
    if (o.required && !o.positional) s += " (required)";
    s += "\n";
  }
  return s;
}

}  // namespace

std::string man_page(const CLI::App& app) {
  std::string s = fmt::format(
      ".\\\" The manual page of bankcheck, generated from its command line definition by\n"
      ".\\\" `bankcheck --generate-man` (tools/bankcheck/docgen.hpp); do not edit.\n"
      ".TH BANKCHECK 1 \"\" \"bankcheck {}\" \"User Commands\"\n"
      ".nh\n.ad l\n",  // option names and paths are not hyphenated
      BANKCHECK_VERSION);
  s += ".SH NAME\n" + std::string(kName);
  s += ".SH SYNOPSIS\n";
  for (const CLI::App* sub : visible_subcommands(app)) s += synopsis(*sub) + ".br\n";
  s += ".B bankcheck\n.RB [ \\-\\-help | \\-\\-version ]\n";
  s += ".SH DESCRIPTION\n" + std::string(kDescription);
  s += ".SH COMMANDS\n";
  for (const CLI::App* sub : visible_subcommands(app)) {
    s += ".SS " + roff(sub->get_name()) + "\n" + paragraphs(sub->get_description());
    s += ".PP\nOptions:\n" + options(*sub);
    if (const std::string footer = sub->get_footer(); !footer.empty())
      s += ".PP\n" + paragraphs(footer);
  }
  s += ".SH OPTIONS\n" + options(app);
  s += ".SH EXIT STATUS\n" + std::string(kExitStatus);
  s += ".SH ENVIRONMENT\n" + paths(kEnvironment);
  s += ".SH FILES\n" + paths(kFiles);
  s += ".SH EXAMPLES\n" + std::string(kExamples);
  s += ".SH SEE ALSO\n" + paths(kSeeAlso);
  return s;
}

}  // namespace bankcheck::tools
