package io.busload.agent.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class HostStagingTest {

  @Test
  void take_afterGive_reusesTheSameMemory() {
    try (HostStaging staging = new HostStaging(1L << 20, HostStaging.Pinning.NONE)) {
      MemorySegment first = staging.take(4096);
      first.set(ValueLayout.JAVA_INT, 0, 42);
      long address = first.address();
      staging.give(first);
      MemorySegment second = staging.take(1000);
      assertThat(second.address()).isEqualTo(address);
      assertThat(second.byteSize()).isEqualTo(1000);
      assertThat(second.get(ValueLayout.JAVA_INT, 0)).as("not zeroed again").isEqualTo(42);
      assertThat(staging.allocations()).isEqualTo(1);
    }
  }

  @Test
  void take_twoAtOnce_areDistinctAndTheSmallestFitIsChosen() {
    try (HostStaging staging = new HostStaging(1L << 20, HostStaging.Pinning.NONE)) {
      MemorySegment big = staging.take(64 << 10);
      MemorySegment small = staging.take(8 << 10);
      assertThat(small.address()).isNotEqualTo(big.address());
      staging.give(big);
      staging.give(small);
      assertThat(staging.take(4 << 10).address()).isEqualTo(small.address());
      assertThat(staging.take(16 << 10).address()).isEqualTo(big.address());
      assertThat(staging.take(128 << 10).byteSize()).isEqualTo(128 << 10);
      assertThat(staging.allocations()).isEqualTo(3);
    }
  }

  @Test
  void take_sizeNotAWholePage_keepsWholePagesAndLendsTheSizeAsked() {
    try (HostStaging staging = new HostStaging(1L << 20, HostStaging.Pinning.NONE)) {
      MemorySegment odd = staging.take(5000);
      assertThat(odd.byteSize()).isEqualTo(5000);
      assertThat(odd.address() % 4096).as("page-aligned").isZero();
      odd.set(ValueLayout.JAVA_BYTE, 4999, (byte) 7);
      staging.give(odd);
      assertThat(staging.keptNow()).isEqualTo(8192);
      assertThat(staging.take(8192).address()).as("the rest of its last page is reused").isEqualTo(odd.address());
    }
  }

  @Test
  void defaultKeptBytes_anEighthOfTheHostsMemory_from4To16GiB() {
    long memory = HostStaging.hostMemoryBytes();
    long jvmSays = ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getTotalMemorySize();
    assertThat(memory).as("MemTotal of /proc/meminfo: at least what the JVM sees (a container may see less)")
        .isGreaterThanOrEqualTo(jvmSays).isPositive();
    assertThat(HostStaging.DEFAULT_KEPT_BYTES).isEqualTo(Math.clamp(memory / 8, 4L << 30, 16L << 30));
  }

  @Test
  void give_overTheLimit_freesTheSmallestFirst() {
    try (HostStaging staging = new HostStaging(100 << 10, HostStaging.Pinning.NONE)) {
      MemorySegment a = staging.take(40 << 10);
      MemorySegment b = staging.take(48 << 10);
      MemorySegment c = staging.take(32 << 10);
      staging.give(a);
      staging.give(b);
      staging.give(c);
      assertThat(staging.keptNow()).isEqualTo(88 << 10);
      assertThatThrownBy(() -> c.get(ValueLayout.JAVA_BYTE, 0)).as("freed").isInstanceOf(IllegalStateException.class);
      assertThat(staging.take(40 << 10).address()).isEqualTo(a.address());
    }
  }

  @Test
  void give_notLent_namesTheField() {
    try (HostStaging staging = new HostStaging(HostStaging.Pinning.NONE)) {
      assertThatThrownBy(() -> staging.give(MemorySegment.ofArray(new byte[8])))
          .hasMessageStartingWith("segment: ");
    }
  }

  @Test
  void pinning_eachSegmentPinnedOnceAndUnpinnedBeforeItIsFreed() {
    java.util.List<String> calls = new java.util.ArrayList<>();
    HostStaging.Pinning recorder = new HostStaging.Pinning() {
      @Override
      public boolean pin(MemorySegment segment) {
        calls.add("pin " + segment.byteSize());
        return segment.byteSize() < (64 << 10); // the driver refuses the larger one: it stays pageable
      }

      @Override
      public void unpin(MemorySegment segment) {
        assertThat(segment.scope().isAlive()).as("unpinned while still allocated").isTrue();
        calls.add("unpin " + segment.byteSize());
      }
    };
    try (HostStaging staging = new HostStaging(1L << 20, recorder)) {
      MemorySegment small = staging.take(4 << 10);
      MemorySegment large = staging.take(64 << 10);
      staging.give(small);
      staging.give(large);
      staging.give(staging.take(4 << 10));
      assertThat(staging.pinnedAllocations()).isEqualTo(1);
    }
    assertThat(calls).containsExactly("pin 4096", "pin 65536", "unpin 4096");
  }
}
