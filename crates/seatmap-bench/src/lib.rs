//! The load generator and the database chores around it, shared by the
//! `seatmap-bench` binary, its benchmarks and seatmap's load tests.

pub mod loadgen;
pub mod reset;

/// CPU time PostgreSQL has used so far, for the cluster in
/// `<data_dir>/pgdata`: the postmaster and its live children, and the
/// children it has reaped (their time is added to its own when they
/// exit). From /proc, in clock ticks turned into seconds.
pub fn postgres_cpu(data_dir: &std::path::Path) -> anyhow::Result<std::time::Duration> {
    use anyhow::Context;
    let pid_file = data_dir.join("pgdata/postmaster.pid");
    let postmaster: i32 = std::fs::read_to_string(&pid_file)?
        .lines()
        .next()
        .context("empty postmaster.pid")?
        .trim()
        .parse()?;
    let ticks = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .ok()
        .flatten()
        .unwrap_or(100) as f64;
    // Fields after the command name (which may hold spaces): state is [0],
    // ppid [1], utime [11], stime [12], cutime [13], cstime [14].
    let fields = |pid: i32| -> Option<Vec<i64>> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let after = stat.rsplit_once(") ")?.1;
        Some(
            after
                .split_whitespace()
                .map(|f| f.parse().unwrap_or(0))
                .collect(),
        )
    };
    let own = fields(postmaster).context("no postmaster in /proc")?;
    let mut total = own[11] + own[12] + own[13] + own[14];
    for entry in std::fs::read_dir("/proc")?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        if let Some(child) = fields(pid) {
            if child.get(1) == Some(&i64::from(postmaster)) {
                total += child[11] + child[12];
            }
        }
    }
    Ok(std::time::Duration::from_secs_f64(total as f64 / ticks))
}
