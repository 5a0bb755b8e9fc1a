package io.busload.coordinator.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.coordinator.Fixtures;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The dashboard's bounded reads on a real PostgreSQL: two devices of one model, newer and older, valid and
 * invalid results of three parameter sets.
 */
class ViewStoreTest {
  private static final DeviceInfo A = Fixtures.gpu("h1", 0);
  private static final DeviceInfo B = Fixtures.gpu("h2", 0);
  private static final Instant T1 = Instant.parse("2026-11-01T00:00:00Z");
  private static final Instant T2 = T1.plusSeconds(3600);
  private static final Instant T3 = T2.plusSeconds(3600);

  @RegisterExtension final OpenDatabase database = new OpenDatabase();
  private ViewStore views;
  private KernelResult aStride1Old;
  private KernelResult aStride1New;
  private KernelResult aStride2;
  private KernelResult bStride1;

  @BeforeEach
  void fill() {
    views = new ViewStore(database.db());
    aStride1Old = Fixtures.result("s1", "r1", "a", A, 1, true, T1);
    aStride1New = Fixtures.result("s2", "r2", "a", A, 1, true, T2);
    aStride2 = Fixtures.result("s1", "r1", "a", A, 2, true, T1);
    bStride1 = Fixtures.result("s3", "r3", "b", B, 1, true, T3);
    new ResultStore(database.db()).insertResults(List.of(aStride1Old, aStride1New, aStride2, bStride1,
        Fixtures.result("s3", "r4", "a", A, 2, false, T3), // newest of stride 2, but invalid
        Fixtures.result("s3", "r4", "a", A, 4, false, T3)), T3); // stride 4 never valid
  }

  private static List<KernelResult> decode(List<String> json) {
    return json.stream().map(j -> JsonCodec.fromJson(j.getBytes(StandardCharsets.UTF_8), KernelResult.class))
        .toList();
  }

  @Test
  void latest_device_newestValidPerKernelAndParams() {
    List<KernelResult> latest = decode(views.latest(A.id(), null));

    assertThat(latest).extracting(KernelResult::id).containsExactly(aStride1New.id(), aStride2.id());
  }

  @Test
  void latest_model_newestValidOfAnyDeviceOfIt() {
    List<KernelResult> latest = decode(views.latest(null, A.name()));

    assertThat(latest).extracting(KernelResult::id).containsExactly(bStride1.id(), aStride2.id());
    assertThat(views.latest(null, "no such model")).isEmpty();
  }

  @Test
  void latest_bothOrNeither_refused() {
    assertThatThrownBy(() -> views.latest(null, null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> views.latest(A.id(), A.name())).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void kernels_pairsWithAValidResultOnly_sorted() {
    assertThat(views.kernels()).containsExactly(
        new ViewStore.KernelParams("stride_copy_fp32", "elements=1024;stride=1"),
        new ViewStore.KernelParams("stride_copy_fp32", "elements=1024;stride=2"));
  }

  @Test
  void history_everyDeviceNewestFirst_limitKeepsTheNewest() {
    List<ViewStore.HistoryPoint> all = views.history("stride_copy_fp32", "elements=1024;stride=1", 100);
    List<ViewStore.HistoryPoint> two = views.history("stride_copy_fp32", "elements=1024;stride=1", 2);

    assertThat(all).extracting(ViewStore.HistoryPoint::resultId)
        .containsExactly(bStride1.id(), aStride1New.id(), aStride1Old.id());
    assertThat(all.getFirst()).isEqualTo(new ViewStore.HistoryPoint(bStride1.id(), B.id(), B.name(), T3,
        bStride1.bandwidth()));
    assertThat(two).extracting(ViewStore.HistoryPoint::resultId).containsExactly(bStride1.id(), aStride1New.id());
    assertThat(views.history("stride_copy_fp32", "elements=1024;stride=4", 100)).as("invalid only").isEmpty();
  }
}
