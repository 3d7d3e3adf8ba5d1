//! `seatmap venue check`: the whole file is checked, every problem named.

fn check(file: &std::path::Path) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_seatmap"))
        .args(["venue", "check"])
        .arg(file)
        .output()
        .unwrap()
}

#[test]
fn a_good_layout_is_summarised_and_a_bad_one_gets_every_problem_with_its_line() {
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("static/layouts");
    let good = check(&examples.join("concert-hall-2000.json"));
    assert!(
        good.status.success(),
        "{}",
        String::from_utf8_lossy(&good.stderr)
    );
    let summary = String::from_utf8_lossy(&good.stdout);
    assert!(
        summary.contains("1500 seats in 4 sections, 500 general-admission places in 1 areas"),
        "{summary}"
    );

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "section,row,seat,x,y,tier,flags\nA,1,1,0,0,std,\nA,1,1,30,0,std,\nA,1,2,-1,0,std,\n",
    )
    .unwrap();
    let refused = check(&bad);
    assert!(!refused.status.success());
    let problems = String::from_utf8_lossy(&refused.stderr);
    assert!(problems.contains("2 problem(s)"), "{problems}");
    assert!(
        problems.contains("line 3: duplicate seat A 1 1 (first on line 2)"),
        "{problems}"
    );
    assert!(
        problems.contains("line 4: bad coordinate (-1, 0)"),
        "{problems}"
    );
}
