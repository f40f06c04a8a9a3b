//! Shared fixtures for the benches.
//!
//! The benches measure memory-core on indexes of 100, 1,000 and 10,000 rows. Building
//! such an index through the API would mean 10,000 locked, fsynced writes per fixture,
//! so [`build_index`] writes `index.md` (and the snapshots) directly in the protocol's
//! format instead: one `write` per file, deterministic content, a realistic mix of
//! `idle`, `active` and `stale` rows with CJK and ASCII topics and summaries, about 200
//! to 300 bytes per row, every timestamp before [`NOW`].
//!
//! A bench then opens the root with [`open_memory`] (a clock fixed at [`NOW`]) and calls
//! [`IndexFixture::restore`] between iterations to undo what the measured call wrote,
//! so that every iteration sees the same files.
//!
//! ```
//! let dir = tempfile::tempdir().unwrap();
//! let fixture = memory_core_benches::build_index(dir.path(), 100, usize::MAX).unwrap();
//! let memory = memory_core_benches::open_memory(&fixture.root);
//! assert_eq!(memory.sessions().unwrap().len(), 100);
//! memory.update(&fixture.update_target, memory_core::SessionUpdate::new().decision("x")).unwrap();
//! fixture.restore().unwrap();
//! assert_eq!(std::fs::read_to_string(memory.index_path()).unwrap(), fixture.index_text());
//! ```

#![deny(missing_docs)]

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{DateTime, Duration, FixedOffset};
use memory_core::AgentMemory;
use memory_core::agent_memory::INDEX_COLUMNS;
use memory_core::durable::FixedClock;

/// The fixed "now" of every fixture and of [`open_memory`]'s clock (RFC 3339).
pub const NOW: &str = "2026-11-29T10:00:00+08:00";

/// How far back the rows of a fixture reach, whatever its size: the same share of
/// `active` rows is then overdue (older than organize's 14 days) at every size.
pub const HISTORY_DAYS: i64 = 180;

/// The agent names rows are spread over (an agent name may use any script).
pub const AGENTS: [&str; 5] = [
    "cursor-main-agent",
    "claude-code",
    "codex-cli",
    "review-bot",
    "文件助手",
];

const TOPICS: [&str; 14] = [
    "登入流程重構",
    "Fix flaky CI on macOS runners",
    "資料庫遷移 v3 → v4",
    "Release 1.2 checklist",
    "API rate limiter 設計",
    "文件站搜尋功能",
    "Refactor session cookie handling",
    "記憶體洩漏調查 (worker pool)",
    "Onboarding docs for new agents",
    "支付模組單元測試補齊",
    "Upgrade tokio to 1.40",
    "前端表單驗證錯誤訊息",
    "Index a | b layout comparison",
    "夜間批次作業逾時",
];

const SUMMARIES: [&str; 12] = [
    "找到 session cookie 未輪替的問題，修正已送審，等待 CI。",
    "Reproduced the race in the lock file; added a regression test and a retry with backoff.",
    "遷移腳本已在 staging 跑完，剩下回填歷史資料與回滾演練。",
    "Cut the release branch, CI green; changelog and tag still to do.",
    "比較 token bucket 與 sliding window，決定先用 token bucket。",
    "Search index builds in 40 s; ranking tweaks and CJK tokenizer pending.",
    "Moved cookie parsing into one module; two call sites still use the old helper.",
    "heap profile 指向 worker pool 的快取未釋放，已加上 LRU 上限。",
    "Wrote the first three onboarding pages; reviewers asked for a glossary.",
    "補上退款與部分退款的測試，覆蓋率從 61% 到 78%。",
    "Bumped tokio; one test relies on the old timer order and needs a fix.",
    "錯誤訊息改為逐欄顯示，設計師確認文案中。",
];

const KEYWORDS: [&str; 14] = [
    "auth",
    "ci",
    "db",
    "release",
    "文件",
    "效能",
    "refactor",
    "bug",
    "infra",
    "frontend",
    "測試",
    "cursor-agent",
    "rate-limit",
    "session-snapshot",
];

const DECISIONS: [&str; 8] = [
    "Rotate session cookies on every login",
    "使用 argon2id 取代 bcrypt",
    "Keep the old endpoint for one release behind a flag",
    "遷移分兩階段：先寫雙表，再切讀取",
    "Pin the CI image to ubuntu-24.04",
    "限流先做在 gateway，不進應用程式",
    "Store search shards per locale",
    "回滾需在 10 分鐘內完成",
];

const FILES: [&str; 8] = [
    "src/auth/cookie.rs",
    "docs/onboarding/第一週.md",
    "migrations/2026_11_v4.sql",
    ".github/workflows/ci.yml",
    "services/gateway/limiter.go",
    "web/src/forms/validate.ts",
    "CHANGELOG.md",
    "scripts/backfill.py",
];

const ACTIONS: [&str; 8] = [
    "Merge the fix after review",
    "補齊回滾演練紀錄",
    "Tag v1.2.0 and publish",
    "請設計師確認錯誤文案",
    "Benchmark the limiter under 5k rps",
    "Add a glossary page",
    "清理 staging 的暫存表",
    "Ask ops about the nightly window",
];

/// The kind of a fixture row, fixed by its position (`i % 10`): 20 % `idle`
/// placeholders, 50 % `active`, 30 % `stale`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    /// A SessionStart placeholder: default topic, summary and keywords, no snapshot.
    Idle,
    /// A session with recorded work.
    Active,
    /// A session organize already marked stale.
    Stale,
}

impl RowKind {
    /// The kind of row `i`.
    pub fn of(i: usize) -> RowKind {
        match i % 10 {
            0 | 1 => RowKind::Idle,
            2..=6 => RowKind::Active,
            _ => RowKind::Stale,
        }
    }

    fn status(self) -> &'static str {
        match self {
            RowKind::Idle => "idle",
            RowKind::Active => "active",
            RowKind::Stale => "stale",
        }
    }
}

/// Whether row `i` is referenced by row `i + 1` (which continues from it): every 20th
/// row, both `active`.
fn is_referenced(i: usize, rows: usize) -> bool {
    i % 20 == 3 && i + 1 < rows
}

/// What [`build_index`] wrote, and the state to restore between bench iterations.
#[derive(Debug, Clone)]
pub struct IndexFixture {
    /// The memory root (holds `index.md` and `sessions/`).
    pub root: PathBuf,
    /// Rows in the index.
    pub rows: usize,
    /// `idle` rows (organize deletes them unless referenced).
    pub idle: usize,
    /// `active` rows.
    pub active: usize,
    /// `active` rows older than 14 days at [`NOW`] (organize marks them stale).
    pub overdue_active: usize,
    /// `stale` rows.
    pub stale: usize,
    /// Rows whose `Referenced By` is not empty.
    pub referenced: usize,
    /// Snapshot files written under `sessions/`.
    pub snapshots: usize,
    /// Size of `index.md` in bytes.
    pub index_bytes: usize,
    /// An unreferenced `active` row with a snapshot, for `update`.
    pub update_target: String,
    /// Another unreferenced row with a snapshot, for `archive`.
    pub archive_target: String,
    index_text: String,
    update_snapshot: String,
    archive_snapshot: String,
}

impl IndexFixture {
    /// The text `index.md` was built with.
    pub fn index_text(&self) -> &str {
        &self.index_text
    }

    /// The index file.
    pub fn index_path(&self) -> PathBuf {
        self.root.join("index.md")
    }

    /// Undoes whatever register, update, organize or archive wrote: rewrites `index.md`
    /// and the two target snapshots as built, removes the target's archive, and flushes
    /// all of it to disk, so that the next measured call's fsync does not pay for the
    /// restore's dirty pages.
    pub fn restore(&self) -> io::Result<()> {
        let sessions = self.root.join("sessions");
        let archive = self.root.join("archive");
        write_synced(&self.index_path(), &self.index_text)?;
        write_synced(
            &sessions.join(format!("{}.md", self.update_target)),
            &self.update_snapshot,
        )?;
        write_synced(
            &sessions.join(format!("{}.md", self.archive_target)),
            &self.archive_snapshot,
        )?;
        match fs::remove_dir_all(archive.join(&self.archive_target)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        for dir in [&self.root, &sessions, &archive] {
            match fs::File::open(dir) {
                Ok(handle) => handle.sync_all()?,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Average bytes per table row (the whole file divided by the rows).
    pub fn bytes_per_row(&self) -> usize {
        self.index_bytes / self.rows.max(1)
    }
}

/// [`NOW`] as a date-time.
pub fn now() -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(NOW).expect("NOW is RFC 3339")
}

/// A clock standing at [`NOW`].
pub fn fixed_clock() -> Arc<FixedClock> {
    Arc::new(FixedClock::new(now()))
}

/// Opens `root` with a clock fixed at [`NOW`], so that every iteration writes the same
/// bytes (the SessionStart id is `2026-11-29-1000-<agent>`, newer than every row).
pub fn open_memory(root: &Path) -> AgentMemory {
    AgentMemory::builder(root)
        .clock(fixed_clock())
        .open()
        .expect("the fixture root opens")
}

/// A small deterministic generator (SplitMix64): fixtures need variety, not randomness.
#[derive(Debug, Clone)]
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[(self.next() % from.len() as u64) as usize]
    }
}

/// One generated row, before rendering.
struct GenRow {
    id: String,
    agent: &'static str,
    topic: String,
    summary: String,
    keywords: Vec<&'static str>,
    kind: RowKind,
    referenced_by: Option<String>,
    continues_from: Option<String>,
    started: DateTime<FixedOffset>,
    updated: DateTime<FixedOffset>,
}

/// How a fixture writes its timestamps: every spelling the index reader accepts, so that
/// a bench can show reading costs the same whatever the spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Spelling {
    /// `2026-10-01T09:00:00+08:00`, as memory-core writes them.
    Rfc3339,
    /// `2026-10-01T01:00:00Z`.
    Zulu,
    /// `2026-10-01T09:00:00.250+08:00`.
    Fraction,
    /// `2026-10-01 09:00`, as people type them.
    SpaceMinutes,
    /// `2026-10-01T09:00`.
    TMinutes,
    /// `2026-10-01 09:00:00`.
    SpaceSeconds,
    /// `2026-10-01 09:00 +08:00`.
    SpacedOffset,
    /// `2026-10-01 09:00:00+0800`.
    CompactOffset,
    /// `2026/10/01 09:00`.
    Slashes,
    /// `2026-10-01` (midnight).
    BareDate,
}

impl Spelling {
    /// Every spelling, [`Spelling::Rfc3339`] first.
    pub const ALL: [Spelling; 10] = [
        Spelling::Rfc3339,
        Spelling::Zulu,
        Spelling::Fraction,
        Spelling::SpaceMinutes,
        Spelling::TMinutes,
        Spelling::SpaceSeconds,
        Spelling::SpacedOffset,
        Spelling::CompactOffset,
        Spelling::Slashes,
        Spelling::BareDate,
    ];

    /// `at` written in this spelling.
    ///
    /// ```
    /// use memory_core_benches::Spelling;
    /// let at = chrono::DateTime::parse_from_rfc3339("2026-10-01T09:00:00+08:00").unwrap();
    /// assert_eq!(Spelling::SpaceMinutes.write(at), "2026-10-01 09:00");
    /// assert_eq!(Spelling::Zulu.write(at), "2026-10-01T01:00:00Z");
    /// assert_eq!(Spelling::Slashes.write(at), "2026/10/01 09:00");
    /// ```
    pub fn write(self, at: DateTime<FixedOffset>) -> String {
        let format = match self {
            Spelling::Rfc3339 => "%Y-%m-%dT%H:%M:%S%:z",
            Spelling::Zulu => return at.naive_utc().format("%Y-%m-%dT%H:%M:%SZ").to_string(),
            Spelling::Fraction => "%Y-%m-%dT%H:%M:%S.250%:z",
            Spelling::SpaceMinutes => "%Y-%m-%d %H:%M",
            Spelling::TMinutes => "%Y-%m-%dT%H:%M",
            Spelling::SpaceSeconds => "%Y-%m-%d %H:%M:%S",
            Spelling::SpacedOffset => "%Y-%m-%d %H:%M %:z",
            Spelling::CompactOffset => "%Y-%m-%d %H:%M:%S%z",
            Spelling::Slashes => "%Y/%m/%d %H:%M",
            Spelling::BareDate => "%Y-%m-%d",
        };
        at.format(format).to_string()
    }

    /// An example of the spelling, for tables.
    ///
    /// ```
    /// assert_eq!(memory_core_benches::Spelling::BareDate.example(), "2026-10-01");
    /// ```
    pub fn example(self) -> String {
        // A constant RFC 3339 literal: parsing it cannot fail.
        let at =
            DateTime::parse_from_rfc3339("2026-10-01T09:00:00+08:00").unwrap_or_else(|_| now());
        self.write(at)
    }
}

fn escape(cell: &str) -> String {
    cell.replace('|', "\\|")
}

fn generate(rows: usize) -> Vec<GenRow> {
    let now = now();
    let spacing = (HISTORY_DAYS * 24 * 60 / rows.max(1) as i64).max(1);
    let mut mix = Mix(0x5EED_0000 + rows as u64);
    let mut out: Vec<GenRow> = Vec::with_capacity(rows);
    let id_of = |i: usize| {
        let started = now - Duration::minutes(spacing * (rows - i) as i64);
        let agent = AGENTS[i % AGENTS.len()];
        (
            format!("{}-{agent}", started.format("%Y-%m-%d-%H%M")),
            agent,
            started,
        )
    };
    for i in 0..rows {
        let (id, agent, started) = id_of(i);
        let kind = RowKind::of(i);
        let (topic, summary, keywords, updated) = match kind {
            RowKind::Idle => (
                memory_core::agent_memory::UNSET_TOPIC.to_string(),
                memory_core::agent_memory::SESSION_START_SUMMARY.to_string(),
                memory_core::agent_memory::SESSION_START_KEYWORDS.to_vec(),
                started,
            ),
            RowKind::Active | RowKind::Stale => {
                let topic = mix.pick(&TOPICS).to_string();
                let summary = format!("{} {}", mix.pick(&SUMMARIES), mix.pick(&SUMMARIES));
                let count = 2 + (mix.next() % 3) as usize;
                let mut keywords: Vec<&str> = Vec::with_capacity(count);
                while keywords.len() < count {
                    let k = mix.pick(&KEYWORDS);
                    if !keywords.contains(&k) {
                        keywords.push(k);
                    }
                }
                let worked = Duration::minutes((mix.next() % 600) as i64);
                let updated = (started + worked).min(now - Duration::minutes(1));
                (topic, summary, keywords, updated)
            }
        };
        let referenced_by = is_referenced(i, rows).then(|| id_of(i + 1).0);
        let continues_from = (i > 0 && is_referenced(i - 1, rows)).then(|| id_of(i - 1).0);
        out.push(GenRow {
            id,
            agent,
            topic,
            summary,
            keywords,
            kind,
            referenced_by,
            continues_from,
            started,
            updated,
        });
    }
    out
}

fn render_index(rows: &[GenRow], spelling: Spelling) -> String {
    let stamp = |at| spelling.write(at);
    let mut text = String::with_capacity(rows.len() * 300 + 256);
    text.push_str("# Memory Index\n\n");
    text.push_str(&memory_core::markdown::render_row(&INDEX_COLUMNS));
    text.push('\n');
    text.push('|');
    text.push_str(&"---|".repeat(INDEX_COLUMNS.len()));
    text.push('\n');
    for row in rows {
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.id,
            row.agent,
            escape(&row.topic),
            escape(&row.summary),
            row.keywords.join(", "),
            row.kind.status(),
            row.referenced_by.as_deref().unwrap_or("-"),
            stamp(row.started),
            stamp(row.updated),
        );
    }
    text
}

fn render_snapshot(row: &GenRow, i: usize, spelling: Spelling) -> String {
    let stamp = |at| spelling.write(at);
    let status = row.kind.status();
    let mut s = format!(
        "# Session: {}\n\n## Metadata\n\n| Field | Value |\n|---|---|\n",
        row.id
    );
    for (field, value) in [
        ("Session ID", row.id.clone()),
        ("Agent Name", row.agent.to_string()),
        ("Topic", escape(&row.topic)),
        ("Status", status.to_string()),
        ("Started At", stamp(row.started)),
        ("Updated At", stamp(row.updated)),
    ] {
        let _ = writeln!(s, "| {field} | {value} |");
    }
    let pick = |list: &[&'static str], k: usize| list[(i + k * 3) % list.len()];
    let _ = write!(
        s,
        "\n## Current Context\n\n{}\n\n進度：{}。\n",
        row.summary,
        pick(&ACTIONS, 2)
    );
    let _ = write!(
        s,
        "\n## Decisions\n\n- {}\n- [superseded] {}\n- {}\n",
        pick(&DECISIONS, 0),
        pick(&DECISIONS, 1),
        pick(&DECISIONS, 2)
    );
    let _ = write!(
        s,
        "\n## Files / Artifacts\n\n- `{}`\n- `{}`\n",
        pick(&FILES, 0),
        pick(&FILES, 1)
    );
    if i.is_multiple_of(3) {
        s.push_str("\n## Open Questions\n\n- Does the staging data match production volume?\n");
    } else {
        s.push_str("\n## Open Questions\n\nNone\n");
    }
    let _ = write!(
        s,
        "\n## Next Actions\n\n- [done] {}\n- {}\n",
        pick(&ACTIONS, 0),
        pick(&ACTIONS, 1)
    );
    match &row.continues_from {
        Some(source) => {
            let _ = write!(s, "\n## Continues From\n\n- `{source}`\n");
        }
        None => s.push_str("\n## Continues From\n\nNone\n"),
    }
    s.push_str("\n## Superseded / Resolved\n\nNone\n");
    s
}

/// Writes a memory root at `dir` with an `index.md` of `rows` rows and up to
/// `with_snapshots` snapshot files (`usize::MAX`: one per non-idle row, as the protocol
/// leaves it — idle rows never have one), and returns what it wrote.
///
/// Rows are spaced evenly over the [`HISTORY_DAYS`] before [`NOW`], oldest first, and
/// spread over [`AGENTS`]; `i % 10` gives the kind ([`RowKind::of`]); every 20th row is
/// referenced by the next one, whose snapshot lists it under `Continues From`.
/// Snapshots go to the most recent non-idle rows first. With at least 25 rows the
/// update and archive targets are distinct unreferenced `active` rows with snapshots
/// (`with_snapshots` must leave at least two such rows).
pub fn build_index(dir: &Path, rows: usize, with_snapshots: usize) -> io::Result<IndexFixture> {
    build_index_spelled(dir, rows, with_snapshots, Spelling::Rfc3339)
}

/// [`build_index`] with every timestamp (index and snapshots) written in `spelling`.
///
/// ```
/// use memory_core_benches::{Spelling, build_index_spelled, open_memory};
/// let dir = tempfile::tempdir().unwrap();
/// let fixture = build_index_spelled(dir.path(), 100, 10, Spelling::Slashes).unwrap();
/// assert!(fixture.index_text().contains("| 2026/"));
/// assert_eq!(open_memory(&fixture.root).sessions().unwrap().len(), 100);
/// ```
pub fn build_index_spelled(
    dir: &Path,
    rows: usize,
    with_snapshots: usize,
    spelling: Spelling,
) -> io::Result<IndexFixture> {
    let generated = generate(rows);
    let text = render_index(&generated, spelling);
    fs::create_dir_all(dir.join("sessions"))?;
    fs::write(dir.join("index.md"), &text)?;

    let mut snapshots = 0;
    let mut candidates: Vec<usize> = Vec::new();
    for (i, row) in generated.iter().enumerate().rev() {
        if snapshots >= with_snapshots {
            break;
        }
        if row.kind == RowKind::Idle {
            continue;
        }
        let snapshot = render_snapshot(row, i, spelling);
        fs::write(
            dir.join("sessions").join(format!("{}.md", row.id)),
            &snapshot,
        )?;
        snapshots += 1;
        if row.kind == RowKind::Active
            && row.referenced_by.is_none()
            && row.continues_from.is_none()
        {
            candidates.push(i);
        }
    }
    // Targets from the middle of the table when there is a choice, not from its end.
    candidates.sort_by_key(|&i| i.abs_diff(rows / 2));
    let [update_at, archive_at] = match candidates.as_slice() {
        [a, b, ..] => [*a, *b],
        _ => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the fixture needs at least two unreferenced active rows with snapshots \
                 (use at least 25 rows and enough snapshots)",
            ));
        }
    };
    let target = |i: usize| {
        (
            generated[i].id.clone(),
            render_snapshot(&generated[i], i, spelling),
        )
    };
    let (update_target, update_snapshot) = target(update_at);
    let (archive_target, archive_snapshot) = target(archive_at);
    let overdue = now() - Duration::days(14);
    Ok(IndexFixture {
        root: dir.to_path_buf(),
        rows,
        idle: count(&generated, |r| r.kind == RowKind::Idle),
        active: count(&generated, |r| r.kind == RowKind::Active),
        overdue_active: count(&generated, |r| {
            r.kind == RowKind::Active && r.updated < overdue && r.referenced_by.is_none()
        }),
        stale: count(&generated, |r| r.kind == RowKind::Stale),
        referenced: count(&generated, |r| r.referenced_by.is_some()),
        snapshots,
        index_bytes: text.len(),
        update_target,
        archive_target,
        index_text: text,
        update_snapshot,
        archive_snapshot,
    })
}

fn write_synced(path: &Path, text: &str) -> io::Result<()> {
    let mut file = fs::File::create(path)?;
    io::Write::write_all(&mut file, text.as_bytes())?;
    file.sync_all()
}

fn count(rows: &[GenRow], f: impl Fn(&GenRow) -> bool) -> usize {
    rows.iter().filter(|r| f(r)).count()
}

/// A fixture in its own temporary directory, removed when dropped.
#[derive(Debug)]
pub struct TempFixture {
    /// Keeps the directory alive.
    pub dir: tempfile::TempDir,
    /// The fixture; its root is `dir/memory`.
    pub fixture: IndexFixture,
}

/// [`build_index`] into a fresh temporary directory (under `$TMPDIR`, so on the same
/// file system as a real memory root would be: fsync costs are real).
pub fn temp_fixture(rows: usize, with_snapshots: usize) -> io::Result<TempFixture> {
    temp_fixture_spelled(rows, with_snapshots, Spelling::Rfc3339)
}

/// [`temp_fixture`] with timestamps written in `spelling` ([`build_index_spelled`]).
pub fn temp_fixture_spelled(
    rows: usize,
    with_snapshots: usize,
    spelling: Spelling,
) -> io::Result<TempFixture> {
    let dir = tempfile::Builder::new()
        .prefix("memcore-bench-")
        .tempdir()?;
    let fixture = build_index_spelled(&dir.path().join("memory"), rows, with_snapshots, spelling)?;
    Ok(TempFixture { dir, fixture })
}

#[cfg(test)]
mod tests {
    use super::*;
    use memory_core::{OrganizeOptions, Status};

    #[test]
    fn fixture_parses_and_matches_its_counts() {
        for rows in [100, 1_000] {
            let t = temp_fixture(rows, usize::MAX).unwrap();
            let f = &t.fixture;
            let memory = open_memory(&f.root);
            let sessions = memory.sessions().unwrap();
            assert_eq!(sessions.len(), rows);
            let status = |s| sessions.iter().filter(|r| r.status == s).count();
            assert_eq!(status(Status::Idle), f.idle);
            assert_eq!(status(Status::Active), f.active);
            assert_eq!(status(Status::Stale), f.stale);
            assert_eq!(f.snapshots, f.active + f.stale);
            assert!(
                (150..=400).contains(&f.bytes_per_row()),
                "{}",
                f.bytes_per_row()
            );
            assert_ne!(f.update_target, f.archive_target);

            let report = memory
                .organize(OrganizeOptions::default().dry_run(true))
                .unwrap();
            assert_eq!(report.marked_stale.len(), f.overdue_active);
            assert!(report.protected.len() >= f.referenced);
        }
    }

    #[test]
    fn every_spelling_reads_as_the_same_sessions() {
        let base = temp_fixture(200, usize::MAX).unwrap();
        let expected = open_memory(&base.fixture.root).sessions().unwrap();
        for spelling in Spelling::ALL {
            let t = temp_fixture_spelled(200, usize::MAX, spelling).unwrap();
            let memory = open_memory(&t.fixture.root);
            let sessions = memory.sessions().unwrap();
            assert_eq!(sessions.len(), expected.len(), "{spelling:?}");
            let example = spelling.example();
            assert!(
                sessions[0].started_at.as_str().len() == example.len(),
                "{spelling:?}: {} vs {example}",
                sessions[0].started_at
            );
            let ids = |s: &[memory_core::SessionRow]| {
                let mut ids: Vec<String> = s.iter().map(|r| r.session_id.to_string()).collect();
                ids.sort();
                ids
            };
            assert_eq!(ids(&sessions), ids(&expected), "{spelling:?}");
            memory.register_session_start("cursor-main-agent").unwrap();
        }
    }

    #[test]
    fn every_operation_runs_and_restore_undoes_it() {
        let t = temp_fixture(100, usize::MAX).unwrap();
        let f = &t.fixture;
        let memory = open_memory(&f.root);
        let snapshot = |id: &str| fs::read_to_string(memory.session_path(id).unwrap()).unwrap();
        let before = (snapshot(&f.update_target), snapshot(&f.archive_target));
        for _ in 0..2 {
            memory.register_session_start("cursor-main-agent").unwrap();
            memory
                .update(
                    &f.update_target,
                    memory_core::SessionUpdate::new().decision("Bench decision"),
                )
                .unwrap();
            memory.archive(&f.archive_target).unwrap();
            memory.organize(OrganizeOptions::default()).unwrap();
            f.restore().unwrap();
            assert_eq!(fs::read_to_string(f.index_path()).unwrap(), f.index_text());
            assert_eq!(
                (snapshot(&f.update_target), snapshot(&f.archive_target)),
                before
            );
        }
    }
}
