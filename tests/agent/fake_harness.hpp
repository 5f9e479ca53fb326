#pragma once

// A stand-in for the determined harness, for the agent's tests of the
// warm launcher (agent/warm_launch.hpp): the modules the launcher imports,
// and a launch layer that says who ran it and under what.

#include <filesystem>
#include <fstream>

namespace det::test {

/// Writes the stand-in package under `root`. Its launch layer prints who
/// ran it and under what, then exits $CODE (or sleeps when SLEEP is set);
/// its REST bindings module says which process loaded it. `broken`: the
/// package does not import. `server_import_s`: the warm launcher's own
/// import of it takes that long (a trial's does not), as a slow machine's.
inline void write_fake_harness(const std::filesystem::path& root,
                               bool broken = false,
                               double server_import_s = 0) {
  namespace fs = std::filesystem;
  fs::create_directories(root / "determined" / "exec");
  fs::create_directories(root / "determined" / "common" / "api");
  std::ofstream{root / "determined" / "__init__.py"}
      << (broken ? std::string{"raise ImportError('broken on purpose')\n"}
                 : "import os, sys, time\nIMPORTED_IN = os.getpid()\n"
                   "if sys.argv[0].endswith('warm_launch.py'):\n"
                   "    time.sleep("
                       + std::to_string(server_import_s)
                       + ")\n"
                         "import determined.common.api\n");
  std::ofstream{root / "determined" / "exec" / "__init__.py"} << "";
  std::ofstream{root / "determined" / "common" / "__init__.py"} << "";
  std::ofstream{root / "determined" / "common" / "api" / "__init__.py"}
      << "from determined.common.api import bindings\n";
  std::ofstream{root / "determined" / "common" / "api" / "bindings.py"}
      << "import os\nLOADED_IN = os.getpid()\n";
  std::ofstream{root / "determined" / "common" / "storage.py"} << "";
  std::ofstream{root / "determined" / "exec" / "launch.py"}
      << "import os, sys, time\n"
         "import determined\n"
         "if __name__ == '__main__':\n"
         "    print('pid=%d' % os.getpid())\n"
         "    print('ppid=%d' % os.getppid())\n"
         "    print('pgrp=%d' % os.getpgrp())\n"
         "    with open('/proc/%d/cmdline' % os.getppid()) as f:\n"
         "        print('by_launcher=%s' % ('warm_launch.py' in f.read()))\n"
         "    print('fresh=%s' % (determined.IMPORTED_IN == os.getpid()))\n"
         "    bindings = determined.common.api.bindings\n"
         "    print('bindings_kept=%s' % (bindings.LOADED_IN != os.getpid()))\n"
         "    print('bindings_file=' + bindings.__file__)\n"
         "    print('cwd=' + os.getcwd())\n"
         "    print('mark=' + os.environ.get('MARK', ''))\n"
         "    print('token=' + os.environ.get('DET_AGENT_TOKEN', 'none'))\n"
         "    print('path=' + os.environ.get('PATH', ''))\n"
         "    sys.stdout.flush()\n"
         "    if os.environ.get('ENTRY'):\n" // upstream's way to its entrypoint
         "        import signal, subprocess\n"
         "        p = subprocess.Popen(['sh', '-c', os.environ['ENTRY']])\n"
         "        signal.signal(signal.SIGTERM, lambda n, f: "
         "p.send_signal(n))\n"
         "        sys.exit(p.wait())\n"
         "    if os.environ.get('SLEEP'):\n"
         "        time.sleep(60)\n"
         "    sys.exit(int(os.environ.get('CODE', '0')))\n";
}

} // namespace det::test
