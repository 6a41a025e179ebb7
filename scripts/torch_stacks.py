"""The PyTorch stacks the side-by-side scripts (bench-vs-pytorch,
bench-infer-vs-pytorch, bench-dp-vs-pytorch) run against, and what each one
really ran.

Stacks (--torch):
  debian  Debian's python3-torch (1.13) under /usr/bin/python3, OpenBLAS behind
          its BLAS calls (scripts/setup --with-torch). Offline; what tests use.
  latest  the newest torch from PyPI that installs here (download.pytorch.org's
          CPU wheels when that index answers, else PyPI's, which pull several
          GB of CUDA libraries nothing here runs).
  ipex    torch 2.8.0 with intel-extension-for-pytorch 2.8.0 (IPEX 2.8 is
          pinned to torch 2.8).
Each PyPI stack lives in its own virtual environment under
${SB_TORCH_CACHE:-${XDG_CACHE_HOME:-~/.cache}/sprbench}/torch-<stack>, made on
first use and reused; remove the directory to make it again. Its stamp file
(sprbench-stack.json) keeps the pip command, how long the install took and
the size; `pip freeze` of the environment goes with every result.

Run as a script it checks its own parsers offline (python3 torch_stacks.py
--selftest); the benchmark scripts import it.
"""
import json, os, re, shutil, subprocess, sys, time, urllib.request

STACKS = ("debian", "latest", "ipex")
DEBIAN_PYTHON = "/usr/bin/python3"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
PIP_PACKAGES = {
    "latest": ["torch", "numpy"],
    "ipex": ["torch==2.8.0", "intel-extension-for-pytorch==2.8.0", "numpy", "psutil"],
}
# the packages named on the one-line summary (the full freeze goes to --json)
KEY_PACKAGES = ("torch", "intel-extension-for-pytorch", "intel_extension_for_pytorch",
                "oneccl-bind-pt", "oneccl_bind_pt", "oneccl-devel", "impi-rt", "numpy",
                "mkl", "intel-openmp", "triton")
TCMALLOC = ("/usr/lib/x86_64-linux-gnu/libtcmalloc.so.4",
            "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4")
# OpenBLAS's core types that mean "this OpenBLAS does not know the CPU"
GENERIC_CORES = ("prescott", "katmai", "coppermine", "northwood", "banias", "core2",
                 "penryn", "dunnington", "generic", "unknown")


def parse_stacks(text):
    """'latest,ipex' -> ['latest', 'ipex']; None when a name is not a stack."""
    names = [s for s in text.split(",") if s]
    if not names or any(s not in STACKS for s in names) or len(set(names)) != len(names):
        return None
    return names


def cache_root():
    root = os.environ.get("SB_TORCH_CACHE")
    if root:
        return root
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(xdg, "sprbench")


def venv_dir(stack):
    return os.path.join(cache_root(), "torch-" + stack)


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def cpu_name():
    try:
        p = subprocess.run(["lscpu"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        name = next((l.split(":", 1)[1].strip() for l in p.stdout.splitlines()
                     if l.startswith("Model name")), "?")
    except OSError:
        name = "?"
    vendor = ""
    try:
        with open("/proc/cpuinfo") as f:
            vendor = next((l.split(":", 1)[1].strip() for l in f if l.startswith("vendor_id")), "")
    except OSError:
        pass
    return "%s (%s), %d CPUs online" % (name, vendor or "?", os.cpu_count() or 0)


def cpu_isa(flags=None):
    """The widest of our kernel families this CPU runs: avx512 or avx2."""
    flags = cpu_flags() if flags is None else flags
    return "avx512" if "avx512f" in flags else "avx2"


def die(prog, message):
    print("%s: %s" % (prog, message), file=sys.stderr)
    sys.exit(2)


def _reachable(url, seconds=5):
    try:
        urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=seconds)
        return True
    except Exception:  # noqa: BLE001 -- any failure means "not reachable from here"
        return False


def _du_mb(path):
    total = 0
    for d, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(d, f)).st_size
            except OSError:
                pass
    return total / 2 ** 20


def unsafe_path(*paths):
    """Why a stack's interpreter may not be run ('' when it may): each of
    paths (and the file a link names) must belong to this user or root and
    be writable by no one else, so that nobody else can have put there the
    python we would run."""
    me = os.getuid()
    for path in paths:
        for p in dict.fromkeys([path, os.path.realpath(path)]):
            try:
                st = os.lstat(p) if p == path else os.stat(p)
            except OSError as e:
                return "%s: %s" % (p, e.strerror)
            if os.path.islink(p) and p == path:
                continue  # the link's directory is checked; its target below
            if st.st_uid not in (me, 0):
                return "%s belongs to uid %d, not to you or root" % (p, st.st_uid)
            if st.st_mode & 0o022:
                return "%s is writable by %s (mode %o)" % (
                    p, "others" if st.st_mode & 0o002 else "its group", st.st_mode & 0o7777)
    return ""


def not_positive(args, names):
    """The first of the integer options names (argparse dests) that is below
    1, as one line for the parser's error ('--seq 0: expected a positive
    whole number'); '' when all are positive."""
    for name in names:
        v = getattr(args, name)
        if v is not None and v < 1:
            return "--%s %d: expected a positive whole number" % (name.replace("_", "-"), v)
    return ""


def python_for(stack, prog):
    """The interpreter of a stack, its virtual environment made first if it is
    not there yet (PyPI stacks). Exits with one line when that fails."""
    if stack == "debian":
        return DEBIAN_PYTHON
    d = venv_dir(stack)
    py = os.path.join(d, "bin", "python")
    stamp = os.path.join(d, "sprbench-stack.json")
    made = os.path.exists(stamp)
    if os.access(py, os.X_OK):
        # checked before anything there runs, stamp or not: a venv left
        # half-made has its python run by pip as surely as by a benchmark
        unsafe = unsafe_path(cache_root(), d, os.path.join(d, "bin"), py,
                             *([stamp] if made else []))
        if unsafe:
            die(prog, "the %s stack in %s is not run: %s" % (stack, d, unsafe))
        if made:
            return py
    if os.environ.get("SB_TORCH_NO_INSTALL"):
        die(prog, "the %s stack is not installed in %s and SB_TORCH_NO_INSTALL is set" % (stack, d))
    index = [] if not _reachable(CPU_INDEX + "/torch/") else ["--index-url", CPU_INDEX,
                                                               "--extra-index-url", "https://pypi.org/simple"]
    pip = [py, "-m", "pip", "install", "--no-input"] + index + PIP_PACKAGES[stack]
    print("%s: making the %s stack in %s, once (%s; without download.pytorch.org's CPU index "
          "PyPI's torch pulls several GB of CUDA libraries)" % (prog, stack, d, " ".join(pip[3:])),
          file=sys.stderr, flush=True)
    t0 = time.time()
    if not os.access(py, os.X_OK):
        p = subprocess.run([DEBIAN_PYTHON, "-m", "venv", d], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            die(prog, "python3 -m venv %s failed: %s" % (d, (p.stdout.strip().splitlines()
                                                            or ["?"])[-1]))
        unsafe = unsafe_path(cache_root(), d, os.path.join(d, "bin"), py)
        if unsafe:
            die(prog, "the %s stack in %s is not run: %s" % (stack, d, unsafe))
    p = subprocess.run(pip, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        die(prog, "installing the %s stack failed (%s): %s" % (
            stack, " ".join(pip[3:]), (p.stdout.strip().splitlines() or ["?"])[-1]))
    info = {"stack": stack, "pip": pip[3:], "install_seconds": round(time.time() - t0, 1),
            "made": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "size_mb": round(_du_mb(d))}
    with open(stamp, "w") as f:
        json.dump(info, f, indent=1)
    print("%s: %s stack made in %.0f s, %.1f GiB" % (prog, stack, info["install_seconds"],
                                                     info["size_mb"] / 1024), file=sys.stderr)
    return py


def stack_record(stack, py):
    """{'stack', 'python', 'packages': {name: version}, 'install': stamp or None}."""
    p = subprocess.run([py, "-c", "import importlib.metadata as m, json; print(json.dumps("
                        "{d.metadata['Name']: d.version for d in m.distributions()}))"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        pkgs = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        pkgs = {}
    if stack == "debian":
        # Debian's own packages are not pip metadata everywhere: ask dpkg too
        q = subprocess.run(["dpkg-query", "-W", "-f", "${Package}=${Version}\\n", "python3-torch",
                            "libopenblas0-openmp", "libopenblas0-pthread", "python3-numpy",
                            "libdnnl2", "libgoogle-perftools4"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        for line in q.stdout.splitlines():
            name, _, ver = line.partition("=")
            if ver:
                pkgs["deb:" + name] = ver
    install = None
    stamp = os.path.join(os.path.dirname(os.path.dirname(py)), "sprbench-stack.json")
    if stack != "debian" and os.path.exists(stamp):
        with open(stamp) as f:
            install = json.load(f)
    return {"stack": stack, "python": py, "packages": dict(sorted(pkgs.items())), "install": install}


def package_line(rec):
    pk = rec["packages"]
    names = [n for n in pk if n.lower() in KEY_PACKAGES or n.startswith("deb:")]
    cuda = sum(1 for n in pk if n.lower().startswith("nvidia-"))
    out = " ".join("%s==%s" % (n, pk[n]) for n in names)
    if cuda:
        out += " (+%d nvidia-* CUDA packages, unused on CPU)" % cuda
    if rec.get("install"):
        out += "; installed %s in %.0f s, %.1f GiB" % (rec["install"]["made"][:10],
                                                      rec["install"]["install_seconds"],
                                                      rec["install"]["size_mb"] / 1024)
    return out


# ---------------------------------------------------------------------------
# What a PyTorch process really ran. CHILD_PRELUDE goes at the top of each
# script's PyTorch child (after `import torch`); it defines
#   IPEX            the imported intel_extension_for_pytorch, or None
#   blocked(why)    print the one line that says a stack cannot run here, exit 3
#   runtime_info()  BLAS, OpenBLAS core, oneDNN, threads, allocator, capability
#   profile_top(fn) fn() under torch.profiler: its top operators by own time
#   verbose()       a context manager: oneDNN's and MKL's verbose output on for
#                   what runs inside it (the warm-up), to stdout, for the parent
#                   to parse with parse_verbose()
CHILD_PRELUDE = r'''
import contextlib as _cl, ctypes as _ct, os as _os
def blocked(why):
    print("SB_BLOCKED " + " ".join(str(why).split()), flush=True)
    sys.exit(3)
IPEX = None
if cfg.get("ipex"):
    try:
        import intel_extension_for_pytorch as IPEX
    except Exception as e:  # an import error, or IPEX refusing this CPU
        blocked("intel_extension_for_pytorch does not load here: %s: %s" % (type(e).__name__, e))

def runtime_info():
    libs = []
    with open("/proc/self/maps") as maps:
        for line in maps:
            p = line.split()[-1]
            if p.startswith("/") and p not in libs and any(k in p for k in (
                    "libblas", "openblas", "libmkl", "libdnnl", "libtcmalloc", "libjemalloc",
                    "libgomp", "libiomp", "intel-ext", "libintel-ext")):
                libs.append(p)
    # the BLAS torch calls: its own MKL (BLAS_INFO=mkl, linked in), or the
    # libblas.so.3 / OpenBLAS it loads (numpy's bundled OpenBLAS is not it)
    blas = next((_os.path.realpath(p) for p in libs if ("libblas" in p or "openblas" in p)
                 and "numpy" not in p), "")
    core = ""
    if blas:
        try:
            fn = _ct.CDLL(blas).openblas_get_corename
            fn.restype = _ct.c_char_p
            core = fn().decode()
        except (OSError, AttributeError):
            pass
    show = torch.__config__.show()
    import re as _re
    info = lambda key: (_re.findall(key + r"=([^,\s]*)", show) or [""])[0]
    dnnl = next((l.strip(" -") for l in show.splitlines() if "MKL-DNN" in l or "oneDNN" in l), "")
    mkl = next((l.strip(" -") for l in show.splitlines() if "Math Kernel Library" in l
                or "oneMKL" in l), "")
    if info("BLAS_INFO") == "mkl":
        blas = ""
    try:
        cap = torch.backends.cpu.get_cpu_capability()
    except AttributeError:
        cap = _os.environ.get("ATEN_CPU_CAPABILITY", "default")
    pre = _os.environ.get("LD_PRELOAD", "")
    alloc = ("tcmalloc" if "tcmalloc" in pre else "jemalloc" if "jemalloc" in pre else "glibc malloc")
    if "MALLOC_MMAP_MAX_" in _os.environ:
        alloc += " (MALLOC_MMAP_MAX_=0, trim threshold 2^40, THP)"
    return {"torch": torch.__version__, "ipex": getattr(IPEX, "__version__", None),
            "blas_info": info("BLAS_INFO"), "blas_library": blas, "openblas_core": core,
            "mkl": mkl, "onednn_build": dnnl, "mkldnn_available": torch.backends.mkldnn.is_available(),
            "mkldnn_enabled": torch.backends.mkldnn.enabled, "aten_capability": cap,
            "threads": torch.get_num_threads(), "interop_threads": torch.get_num_interop_threads(),
            "parallel": [l.strip() for l in torch.__config__.parallel_info().splitlines()
                         if "ATen parallel backend" in l or "OpenMP" in l][:2],
            "allocator": alloc, "libraries": libs,
            "openblas_coretype_env": _os.environ.get("OPENBLAS_CORETYPE", "")}

def profile_top(fn, n=12):
    """fn() once under torch.profiler: the n operators with the most own time."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        fn()
    ka = prof.key_averages()
    total = sum(e.self_cpu_time_total for e in ka) or 1
    return [{"op": e.key, "self_ms": e.self_cpu_time_total / 1e3, "calls": e.count,
             "share": e.self_cpu_time_total / total}
            for e in sorted(ka, key=lambda e: -e.self_cpu_time_total)[:n]]

@_cl.contextmanager
def verbose():
    with _cl.ExitStack() as st:
        for mod in (torch.backends.mkldnn, getattr(torch.backends, "mkl", None)):
            if mod is not None and hasattr(mod, "verbose"):
                try:
                    st.enter_context(mod.verbose(1))
                except Exception:
                    pass
        if IPEX is not None and hasattr(IPEX, "verbose"):
            try:
                st.enter_context(IPEX.verbose(1))
            except Exception:
                pass
        yield
    sys.stdout.flush()
'''


def parse_verbose(text):
    """oneDNN's and MKL's verbose lines -> {'onednn': [versions], 'isa': [..],
    'runtime': [..], 'impls': {primitive kind: {implementation: count}}, 'mkl': header}.
    Handles oneDNN 2.x (onednn_verbose,info,...; dnnl_verbose,...) and 3.x
    (onednn_verbose,v1,info,... and ...,primitive,exec,cpu,KIND,IMPL,...)."""
    out = {"onednn": [], "isa": [], "runtime": [], "impls": {}, "mkl": ""}
    for line in text.splitlines():
        if line.startswith("MKL_VERBOSE") and not out["mkl"] and ("Product" in line
                                                                    or "oneMKL" in line):
            out["mkl"] = line[len("MKL_VERBOSE"):].strip()
            continue
        if not (line.startswith("onednn_verbose") or line.startswith("dnnl_verbose")):
            continue
        if ",gpu," in line:
            continue
        f = line.split(",")
        for x in f:
            m = re.match(r"\s*(oneDNN|DNNL) (v[0-9][0-9.]*)", x)
            if m and m.group(2) not in out["onednn"]:
                out["onednn"].append(m.group(2))
            for key in ("isa", "runtime"):
                if x.startswith(key + ":") and x[len(key) + 1:] not in out[key]:
                    out[key].append(x[len(key) + 1:])
        if "exec" in f:
            i = f.index("exec")
            if len(f) > i + 3 and f[i + 1] == "cpu":
                kind, impl = f[i + 2], f[i + 3]
                if "graph" in f[:i]:   # a oneDNN Graph partition: ...,exec,cpu,ID,KIND,...
                    kind = "graph partition"
                d = out["impls"].setdefault(kind, {})
                d[impl] = d.get(impl, 0) + 1
    return out


def split_child_output(stdout):
    """A child's stdout -> (its JSON result or None, blocked reason or None,
    the verbose lines parsed)."""
    lines = stdout.strip().splitlines()
    blocked = next((l[len("SB_BLOCKED "):] for l in lines if l.startswith("SB_BLOCKED ")), None)
    result = None
    for l in reversed(lines):
        if l.startswith("{"):
            try:
                result = json.loads(l)
                break
            except ValueError:
                pass
    return result, blocked, parse_verbose(stdout)


def verbose_line(v):
    if not v:
        return "oneDNN: not seen"
    impls = "; ".join("%s: %s" % (k, ", ".join("%s x%d" % (i, n) for i, n in sorted(
        d.items(), key=lambda x: -x[1])[:3])) for k, d in sorted(v["impls"].items()))
    out = "oneDNN %s, ISA %s, runtime %s" % (", ".join(v["onednn"]) or "(no primitive ran)",
                                             ", ".join(v["isa"]) or "-",
                                             ", ".join(v["runtime"]) or "-")
    if impls:
        out += "; primitives in the warm-up: " + impls
    if v.get("mkl"):
        out += "; MKL: " + v["mkl"]
    return out


def runtime_line(ri):
    """One line of what a PyTorch process ran (runtime_info() of the child)."""
    blas = ri.get("blas_info") or "?"
    if blas == "mkl":
        blas = "MKL linked into libtorch_cpu (%s)" % (ri.get("mkl") or "?")
    if ri.get("blas_library"):
        blas += " (%s%s)" % (ri["blas_library"], ", OpenBLAS core type " + ri["openblas_core"]
                             if ri.get("openblas_core") else "")
    return ("torch %s%s; BLAS %s; %s; ATen CPU capability %s; %d threads (%s); allocator %s" % (
        ri.get("torch"), ", IPEX " + ri["ipex"] if ri.get("ipex") else "", blas,
        ri.get("onednn_build") or "oneDNN build unknown", ri.get("aten_capability"),
        ri.get("threads", 0), "; ".join(ri.get("parallel", [])), ri.get("allocator")))


# ---------------------------------------------------------------------------
# environments PyTorch runs under

def openblas_cores_for(flags, vendor_amd):
    """The OpenBLAS core types (OPENBLAS_CORETYPE) that suit a CPU with these
    flags, best first (an older OpenBLAS may not know the first ones)."""
    out = []
    if "avx512f" in flags:
        if "amx_bf16" in flags:
            out.append("SapphireRapids")
        if "avx512_bf16" in flags:
            out.append("Cooperlake")
        out.append("SkylakeX")
    if "avx2" in flags:
        out += ["Zen", "Haswell"] if vendor_amd else ["Haswell"]
    return out


def is_generic_core(core):
    return core.strip().lower() in GENERIC_CORES


def torch_envs(untuned, isa):
    """[(name, env, notes)]: the allocator set-ups PyTorch is tried with (the
    faster counts)."""
    base = dict(os.environ)
    if untuned:
        return [("as installed", base, ["as installed (no allocator tuning, OPENBLAS_* kept)"])]
    common = []
    for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        if base.pop(var, None) is not None:
            common.append("unset " + var)
    if isa == "avx2":
        # ATen's vectorised code, oneDNN and OpenBLAS all held to AVX2
        base["ATEN_CPU_CAPABILITY"] = "avx2"
        base["ONEDNN_MAX_CPU_ISA"] = "AVX2"
        base["DNNL_MAX_CPU_ISA"] = "AVX2"
        base["OPENBLAS_CORETYPE"] = "Haswell"
        common.append("ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell")
    out = []
    tc = next((c for c in TCMALLOC if os.path.exists(c)), None)
    if tc:
        env = dict(base)
        env["LD_PRELOAD"] = (tc + " " + env.get("LD_PRELOAD", "")).strip()
        out.append(("tcmalloc", env, common + ["LD_PRELOAD=" + tc]))
    # glibc malloc kept from returning memory, its big blocks on transparent
    # huge pages (glibc >= 2.35; ours asks for them too, see sb_mem.h)
    env = dict(base)
    env["MALLOC_MMAP_MAX_"] = "0"
    env["MALLOC_TRIM_THRESHOLD_"] = str(1 << 40)
    env["GLIBC_TUNABLES"] = "glibc.malloc.hugetlb=1"
    out.append(("glibc+THP", env, common + [
        "MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=2^40 GLIBC_TUNABLES=glibc.malloc.hugetlb=1"]))
    return out


PROBE_CHILD = r'''
import json, sys
cfg = json.loads(sys.argv[1])
import torch
''' + CHILD_PRELUDE + r'''
torch.set_num_threads(cfg["threads"])
with verbose():   # one BLAS call and one oneDNN primitive: their versions and ISA
    torch.ones(64, 64) @ torch.ones(64, 64)
    torch.nn.functional.conv2d(torch.ones(1, 8, 8, 8), torch.ones(8, 8, 3, 3))
print(json.dumps(runtime_info()))
'''


class Stack:
    """A stack ready to run: interpreter, environments, what it ran."""

    def __init__(self, name, prog, untuned, isa, threads):
        self.name, self.prog = name, prog
        self.python = python_for(name, prog)
        self.envs = torch_envs(untuned, isa)
        self.notes = []
        self.record = stack_record(name, self.python)
        self.runtime = self._probe(self.envs[0][1], threads)
        self._mkl_note()
        core = self.runtime.get("openblas_core", "")
        if core and is_generic_core(core) and not untuned and isa != "avx2":
            flags = cpu_flags()
            after = ""
            for want in openblas_cores_for(flags, "AuthenticAMD" in cpu_name()):
                env = dict(self.envs[0][1], OPENBLAS_CORETYPE=want)
                after = self._probe(env, threads).get("openblas_core", "")
                if after and not is_generic_core(after):
                    break
            if after and not is_generic_core(after):
                for _, env, notes in self.envs:
                    env["OPENBLAS_CORETYPE"] = want
                    notes.append("OPENBLAS_CORETYPE=" + want)
                self.notes.append("OpenBLAS reported core type %s on %s (this OpenBLAS does not "
                                  "know the CPU): set OPENBLAS_CORETYPE=%s, it now reports %s" % (
                                      core, cpu_name(), want, after or "?"))
                self.runtime["openblas_core"] = after
                self.runtime["openblas_coretype_env"] = want
            else:
                self.notes.append("OpenBLAS reports the generic core type %s on %s and no "
                                  "OPENBLAS_CORETYPE this OpenBLAS knows changes it: PyTorch's "
                                  "f32 here is not at its best" % (core, cpu_name()))

    def _mkl_note(self):
        mkl = (self.runtime.get("probe_verbose") or {}).get("mkl", "")
        if "Intel(R) Architecture processors" in mkl and "AuthenticAMD" in cpu_name():
            self.notes.append(
                "oneMKL (linked into libtorch_cpu, PyTorch's f32 BLAS) takes its generic x86 code "
                "path on this AMD CPU ('%s'); nothing here can change that (MKL_DEBUG_CPU_TYPE is "
                "gone since oneMKL 2020.1 and mkl_serv_intel_cpu_true is bound inside "
                "libtorch_cpu), so stock PyTorch's f32 matrix products run as installed%s" % (
                    mkl.split(" for ")[-1].split(",")[0] if " for " in mkl else mkl,
                    "; IPEX's f32 Linear runs with auto_kernel_selection=True (oneDNN)"
                    if self.name == "ipex" else ""))

    def _probe(self, env, threads):
        cfg = {"threads": threads, "ipex": self.name == "ipex"}
        p = subprocess.run([self.python, "-c", PROBE_CHILD, json.dumps(cfg)], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        res, blocked, verb = split_child_output(p.stdout)
        if blocked:
            self.blocked = blocked
            return {}
        if res is not None:
            res["probe_verbose"] = verb
        if p.returncode != 0 or res is None:
            last = (p.stderr.strip().splitlines() or ["no output"])[-1]
            hint = " (scripts/setup --with-torch)" if self.name == "debian" else ""
            die(self.prog, "PyTorch (%s stack, %s) does not start: %s%s" % (
                self.name, self.python, last, hint))
        return res

    blocked = None

    def summary(self):
        return {"stack": self.name, "packages": self.record["packages"],
                "install": self.record["install"], "runtime": self.runtime,
                "notes": self.notes, "blocked": self.blocked,
                "env_setups": {n: notes for n, _, notes in self.envs}}

    def run_child(self, code, args, label):
        """Runs a PyTorch child under each env set-up. -> [(setup, result, verbose)],
        or sets self.blocked (one line printed) when the child says the stack
        cannot run here. `key` picks the better set-up in the caller."""
        out = []
        for name, env, _ in self.envs:
            print("+ PyTorch %s (%s, %s)" % (label, self.name, name), file=sys.stderr, flush=True)
            p = subprocess.run([self.python, "-c", code] + args, env=env, stdout=subprocess.PIPE,
                               text=True)
            res, blocked, verb = split_child_output(p.stdout)
            if blocked:
                if not self.blocked:
                    print("%s: the %s stack cannot run %s on %s: %s" % (
                        self.prog, self.name, label, cpu_name(), blocked), flush=True)
                self.blocked = blocked
                return out
            if p.returncode != 0 or res is None:
                print("  PyTorch %s (%s, %s) failed (exit %d)" % (label, self.name, name,
                                                                 p.returncode), file=sys.stderr)
                continue
            res["allocator_setup"] = name
            out.append((name, res, verb))
        return out


def print_stacks(stacks):
    for s in stacks:
        print("PyTorch stack %s: %s" % (s.name, package_line(s.record)))
        if s.runtime:
            print("  ran: " + runtime_line(s.runtime))
        for n in s.notes:
            print("  " + n)
        if s.blocked:
            print("  BLOCKED here: " + s.blocked)


def peaks(sprbench, threads, paths):
    """{path: GFLOP/s or GOP/s at `threads`} from a short `sprbench peak` run."""
    p = subprocess.run([sprbench, "peak", "--paths", ",".join(paths), "--threads", str(threads),
                        "--seconds", "0.5", "--json"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        return {}
    m = doc.get("metrics", doc)
    out = {}
    for path in paths:
        for key in ("%s_gflops" % path, "%s_gops" % path):
            for k in ("%s_t%d" % (key, threads), key):
                if isinstance(m.get(k), (int, float)):
                    out.setdefault(path, float(m[k]))
    return out


# ---------------------------------------------------------------------------
def best_of(files):
    """The --json rows of several one-round runs merged as --rounds N merges
    rounds: per workload, precision, batch, stack (and backend), each side's
    best (the most tokens or sequences a second, the lowest latency), the
    ratio recomputed, the rounds listed. A machine shared with other work only
    ever slows a run down, so rounds are run apart and the best one counts."""
    merged, order = {}, []
    for fn in files:
        with open(fn) as f:
            for r in json.load(f):
                key = (r.get("workload"), r.get("precision"), r.get("batch"), r.get("torch_stack"),
                       r.get("torch_backend"))
                if key not in merged:
                    merged[key] = dict(r, rounds=0, merged_from=[])
                    order.append(key)
                m = merged[key]
                m["rounds"] += 1
                m["merged_from"].append(fn)
                for side in ("ours", "torch"):
                    for k, lower in (("%s_tokens_per_s" % side, False),
                                     ("%s_sequences_per_s" % side, False),
                                     ("%s_latency_p50_ms" % side, True)):
                        if k not in r:
                            continue
                        v = r[k]
                        m.setdefault("%s_each_round" % k, []).append(v)
                        if v is None:
                            continue
                        if m.get(k) is None or (v < m[k] if lower else v > m[k]):
                            m[k] = v
                            for extra in ("%s_pct_peak" % side, "%s_peak_rss_mb" % side):
                                if extra in r:
                                    m[extra] = r[extra]
    for m in merged.values():
        for a, b in (("ours_tokens_per_s", "torch_tokens_per_s"),
                     ("ours_sequences_per_s", "torch_sequences_per_s"),
                     ("ours_latency_p50_ms", "torch_latency_p50_ms")):
            if m.get(a) and m.get(b):
                m["ratio"] = m[a] / m[b]
                if m.get("torch_status", "").startswith("failed"):
                    m["torch_status"] = "ok"
    return [merged[k] for k in order]


def _selftest():
    v2 = ("onednn_verbose,info,oneDNN v2.6.3 (commit 52b5f107)\n"
          "onednn_verbose,info,cpu,runtime:OpenMP\n"
          "onednn_verbose,info,cpu,isa:Intel AVX2\n"
          "onednn_verbose,exec,cpu,convolution,jit:avx2,forward_training,src_f32::blocked:abcd,1.2\n")
    v3 = ("onednn_verbose,v1,info,oneDNN v3.7.1 (commit 8d263e6)\n"
          "onednn_verbose,v1,info,cpu,runtime:OpenMP,nthr:2\n"
          "onednn_verbose,v1,info,cpu,isa:Intel AVX-512 with AVX512BW, AVX512VL, and AVX512DQ "
          "extensions\n"
          "onednn_verbose,v1,primitive,exec,cpu,matmul,brg_matmul:avx512_core_amx,undef,src:bf16\n"
          "onednn_verbose,v1,primitive,exec,cpu,matmul,brg_matmul:avx512_core_amx,undef,src:bf16\n"
          "MKL_VERBOSE oneMKL 2024.2 Product build 20240605 for Intel(R) 64 architecture\n")
    a, b = parse_verbose(v2), parse_verbose(v3)
    ok = (a["onednn"] == ["v2.6.3"] and a["isa"] == ["Intel AVX2"] and a["runtime"] == ["OpenMP"]
          and a["impls"] == {"convolution": {"jit:avx2": 1}}
          and b["onednn"] == ["v3.7.1"] and b["isa"][0].startswith("Intel AVX-512")
          and b["impls"] == {"matmul": {"brg_matmul:avx512_core_amx": 2}}
          and b["mkl"].startswith("oneMKL 2024.2"))
    ok = ok and openblas_cores_for({"avx2", "fma"}, True) == ["Zen", "Haswell"]
    ok = ok and openblas_cores_for({"avx2", "avx512f", "avx512_bf16", "amx_bf16"}, False) == [
        "SapphireRapids", "Cooperlake", "SkylakeX", "Haswell"]
    ok = ok and openblas_cores_for({"avx512f"}, False) == ["SkylakeX"]
    ok = ok and is_generic_core("Prescott") and not is_generic_core("Haswell")
    ok = ok and parse_stacks("latest,ipex") == ["latest", "ipex"] and parse_stacks("nightly") is None
    ok = ok and parse_stacks("ipex,ipex") is None
    res, blk, _ = split_child_output("noise\nSB_BLOCKED IPEX needs AVX-512\n")
    ok = ok and res is None and blk == "IPEX needs AVX-512"
    g = parse_verbose("onednn_verbose,v1,graph,exec,cpu,100410,quantized_matmul_post_ops,"
                      "dnnl_backend,1.5\n")
    ok = ok and g["impls"] == {"graph partition": {"quantized_matmul_post_ops": 1}}
    res, blk, verb = split_child_output(v2 + '{"x": 1}\n')
    ok = ok and res == {"x": 1} and blk is None and verb["isa"] == ["Intel AVX2"]
    class A:  # argparse's namespace, as the scripts' parsers fill it
        seq, threads, global_batch, rounds = 384, 0, 8, None
    ok = ok and not_positive(A, ("seq", "threads")) == (
        "--threads 0: expected a positive whole number")
    A.threads, A.seq = 2, -3
    ok = ok and not_positive(A, ("seq", "threads")).startswith("--seq -3: ")
    A.seq = 1
    ok = ok and not_positive(A, ("seq", "threads", "global_batch", "rounds")) == ""
    A.global_batch = 0
    ok = ok and not_positive(A, ("global_batch",)).startswith("--global-batch 0: ")
    print("torch_stacks self-test: %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--selftest"]:
        sys.exit(_selftest())
    if len(sys.argv) > 3 and sys.argv[1] == "--best-of":
        # torch_stacks.py --best-of OUT ROUND1.json ROUND2.json ...
        rows = best_of(sys.argv[3:])
        with open(sys.argv[2], "w") as f:
            json.dump(rows, f, indent=1)
        for r in rows:
            figs = [(k, r[k]) for k in ("ours_tokens_per_s", "torch_tokens_per_s",
                                        "ours_sequences_per_s", "torch_sequences_per_s",
                                        "ours_latency_p50_ms", "torch_latency_p50_ms") if r.get(k)]
            print("%-9s %-5s batch %-3s %-7s %s ratio %s (%d rounds)" % (
                r.get("workload"), r.get("precision"), r.get("batch"), r.get("torch_stack"),
                " ".join("%s %.2f" % kv for kv in figs),
                "%.2fx" % r["ratio"] if r.get("ratio") else "-", r["rounds"]))
        sys.exit(0)
    print(__doc__)
