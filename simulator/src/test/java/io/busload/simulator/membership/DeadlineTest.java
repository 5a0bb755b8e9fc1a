package io.busload.simulator.membership;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeadlineTest {
  private final AtomicLong now = new AtomicLong(1_000);

  @Test
  void cap_beforeTheDeadline_shortensOnlyLimitsThatReachPastIt() {
    Deadline deadline = new Deadline(now.get() + Duration.ofSeconds(30).toNanos(), now::get);

    assertThat(deadline.cap(Duration.ofMinutes(3))).isEqualTo(Duration.ofSeconds(30));
    assertThat(deadline.cap(Duration.ofSeconds(10))).isEqualTo(Duration.ofSeconds(10));
    assertThat(deadline.passed()).isFalse();
  }

  @Test
  void cap_afterTheDeadline_isZeroAndPassed() {
    Deadline deadline = new Deadline(now.get() + 5, now::get);
    now.addAndGet(Duration.ofSeconds(1).toNanos());

    assertThat(deadline.cap(Duration.ofMinutes(3))).isEqualTo(Duration.ZERO);
    assertThat(deadline.passed()).isTrue();
  }

  @Test
  void after_zero_isNoDeadline() {
    assertThat(Deadline.after(Duration.ZERO).passed()).isFalse();
    assertThat(Deadline.after(Duration.ZERO).cap(Duration.ofDays(1))).isEqualTo(Duration.ofDays(1));
  }

  @Test
  void run_deadlinePassed_startsNoMemberAndReturnsNoSizes(@TempDir Path dir) throws Exception {
    Deadline passed = new Deadline(now.get(), now::get);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    List<SizeFigures> figures;
    try (MembershipRun run = new MembershipRun(new MembershipRun.Options(List.of(2, 3), "48m", "64m", Duration.ofSeconds(1),
        16701, 1, dir, 0, passed), new PrintStream(log, true, StandardCharsets.UTF_8))) {
      figures = run.run();
    }

    assertThat(figures).isEmpty();
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).noneMatch(name -> name.startsWith("member-0"));
    }
    assertThat(log.toString(StandardCharsets.UTF_8)).contains("deadline");
  }
}
