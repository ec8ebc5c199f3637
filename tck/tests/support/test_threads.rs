//! More libtest threads for a self-test binary than the machine has cores.
//!
//! Its tests mostly wait: on no-signal windows, on a broken target's
//! deadlines, on `run_all`'s own worker threads. With libtest's default of
//! one test per core, a 2-core machine spends most of the binary's run
//! asleep (issue 30). More tests at once leave every wait as long as it is:
//! each test still gets its own deadlines, and a check that needs a thread to
//! show itself waits for it as before.
//!
//! libtest reads `RUST_TEST_THREADS` when `main` starts, so the default is
//! set before `main`; an explicit `RUST_TEST_THREADS` or `--test-threads`
//! wins.

/// Tests at once, whatever the number of cores.
const TEST_THREADS: &str = "6";

#[ctor::ctor(unsafe)]
fn more_test_threads() {
    if std::env::var_os("RUST_TEST_THREADS").is_none() {
        // SAFETY: a constructor runs before `main`, while the process has
        // its one thread: libtest has not started, and no test or other
        // constructor of this binary starts a thread, so nothing else reads
        // or writes the environment at the same time.
        unsafe { std::env::set_var("RUST_TEST_THREADS", TEST_THREADS) };
    }
}
