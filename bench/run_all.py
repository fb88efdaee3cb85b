"""Run every bench/bench_*.py in turn and print their figures (`make bench`).

Extra arguments are passed to every benchmark (e.g. --strict). Exits 1 when one fails."""
import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv):
    failed = []
    scripts = sorted(glob.glob(os.path.join(HERE, "bench_*.py")))
    for script in scripts:
        name = os.path.basename(script)
        print("== %s" % name, flush=True)
        if subprocess.run([sys.executable, script] + argv).returncode != 0:
            failed.append(name)
        print(flush=True)
    print("%d benchmark(s) run%s" % (len(scripts), ", failed: " + " ".join(failed) if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
