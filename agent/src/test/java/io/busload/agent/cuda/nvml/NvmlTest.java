package io.busload.agent.cuda.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.busload.agent.device.ClockSensor;
import io.busload.agent.device.EnergySensor;
import io.busload.protocol.Clocks;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The FFM binding of NVML against a stand-in library built from src/test/resources/nvml/fake-nvml.c, so
 * that the calls, their layouts and the not-found paths run on a host without a GPU. A real GPU is the lead's run
 * (deploy/gpu/run-measure-method.sh).
 */
class NvmlTest {
  @TempDir
  Path dir;

  private Path fakeLibrary(String... flags) throws IOException, InterruptedException {
    return FakeNvml.build(dir, flags);
  }

  @Test
  void load_fakeLibrary_readsClocksAndReasonsThroughFfm() throws Exception {
    Nvml nvml = Nvml.load(fakeLibrary());

    assertThat(nvml.version()).isEqualTo("580.82.07");
    ClockSensor sensor = nvml.sensorOf("GPU-fake-0");
    assertThat(sensor.availability()).isEqualTo(Clocks.Reading.READ);
    assertThat(sensor.note()).isEqualTo("NVML, driver 580.82.07");
    ClockSensor.Reading reading = sensor.read();
    // The stand-in answers the environment's FAKE_NVML_* or 1980 MHz SM, 2619 MHz memory, no reasons.
    assertThat(reading.memMHz()).isEqualTo(2619);
    assertThat(reading.smMHz()).isEqualTo(System.getenv("FAKE_NVML_SM") == null ? 1980
        : Integer.parseInt(System.getenv("FAKE_NVML_SM")));
    assertThat(reading.throttling()).isEqualTo(System.getenv("FAKE_NVML_REASONS") != null
        && Clocks.throttling(Long.decode(System.getenv("FAKE_NVML_REASONS"))));
  }

  @Test
  void sensorOf_unknownUuid_notFoundNamedByNvml() throws Exception {
    Nvml nvml = Nvml.load(fakeLibrary());

    assertThatThrownBy(() -> nvml.sensorOf("GPU-other")).isInstanceOf(NvmlUnavailableException.class)
        .hasMessage("nvmlDeviceGetHandleByUUID(GPU-other) failed: Not Found (13)");
  }

  @Test
  void load_libraryThatIsNoNvml_unavailableSayingWhichSymbol() throws Exception {
    Path notNvml = dir.resolve("libnot-nvml.so");
    Path source = dir.resolve("empty.c");
    Files.writeString(source, "int nothing(void) { return 0; }\n");
    Process cc;
    try {
      cc = new ProcessBuilder("cc", "-shared", "-fPIC", "-o", notNvml.toString(), source.toString()).start();
    } catch (IOException e) {
      assumeTrue(false, "no C compiler on this host");
      return;
    }
    assertThat(cc.waitFor()).isZero();

    assertThatThrownBy(() -> Nvml.load(notNvml)).isInstanceOf(NvmlUnavailableException.class)
        .hasMessage("NVML has no symbol nvmlErrorString");
  }

  @Test
  void load_noSuchLibrary_unavailableNamingIt() {
    assertThatThrownBy(() -> Nvml.load(dir.resolve("libnvidia-ml.so.1")))
        .isInstanceOf(NvmlUnavailableException.class).hasMessageContaining("no NVML on this host");
  }

  @Test
  void sensor_noUuid_notReadSayingWhy() {
    ClockSensor sensor = Nvml.sensor(null);

    assertThat(sensor.availability()).isEqualTo(Clocks.Reading.NOT_READ);
    assertThat(sensor.note()).contains("no CUDA UUID");
  }

  /** NVLink state, link by link, through the same binding: to NVSwitches, to GPUs, and none. */
  @Test
  void nvlinksOf_fakeGpus_activeLinksByWhatTheyReach() throws Exception {
    Nvml nvml = Nvml.load(fakeLibrary());

    assertThat(nvml.nvlinksOf("GPU-fake-0")).contains(new Nvml.NvLinks(18, 17, java.util.Map.of(), 17));
    assertThat(nvml.nvlinksOf("GPU-fake-direct")).contains(new Nvml.NvLinks(6, 6,
        java.util.Map.of("0000:00:07.0", 4, "000a:41:00.0", 2), 0));
    assertThat(nvml.nvlinksOf("GPU-fake-pcie")).contains(Nvml.NvLinks.NONE);
    assertThatThrownBy(() -> nvml.nvlinksOf("GPU-nope")).isInstanceOf(NvmlUnavailableException.class)
        .hasMessageContaining("nvmlDeviceGetHandleByUUID(GPU-nope) failed");
  }

  @Test
  void energySensorOf_fakeGpu_readsTheCounterAndPowerThroughFfm() throws Exception {
    Nvml nvml = Nvml.load(fakeLibrary());

    EnergySensor sensor = nvml.energySensorOf("GPU-fake-0");

    assertThat(sensor.reads()).isTrue();
    assertThat(sensor.note()).isEqualTo("NVML, driver 580.82.07");
    long first = sensor.totalMillijoules();
    // The stand-in's counter moves 1000 mJ a read, from 5,000,000 (the sensor read it once when made).
    assertThat(first).isGreaterThan(5_000_000L);
    assertThat(sensor.totalMillijoules()).isEqualTo(first + 1000);
    // The instantaneous field (62 W in the stand-in), not the one-second average (75 W).
    assertThat(sensor.powerMilliwatts()).isEqualTo(62_000L);
  }

  @Test
  void energySensorOf_gpuWithoutCounter_notReadWithNvmlsAnswer() throws Exception {
    Nvml nvml = Nvml.load(fakeLibrary());

    EnergySensor sensor = nvml.energySensorOf("GPU-fake-pcie");

    assertThat(sensor.reads()).isFalse();
    assertThat(sensor.note()).isEqualTo("energy not read on this GPU: nvmlDeviceGetTotalEnergyConsumption failed:"
        + " Not Supported (3)");
    assertThatThrownBy(sensor::totalMillijoules).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void energySensorOf_nvmlWithoutEnergyCalls_notReadNamingThem() throws Exception {
    Nvml nvml = Nvml.load(fakeLibrary("-DFAKE_NVML_NO_ENERGY"));

    EnergySensor sensor = nvml.energySensorOf("GPU-fake-0");

    assertThat(sensor.reads()).isFalse();
    assertThat(sensor.note()).contains("has no nvmlDeviceGetTotalEnergyConsumption");
  }

  @Test
  void energySensorOf_nvmlWithoutInstantPower_fallsBackToTheAveragedPowerUsage() throws Exception {
    Path source = dir.resolve("no-fields.c");
    Files.writeString(source, Files.readString(Path.of("src/test/resources/nvml/fake-nvml.c"))
        .replace("int nvmlDeviceGetFieldValues(", "static int unused_field_values("));
    Path library = dir.resolve("libno-fields.so");
    Process cc = new ProcessBuilder("cc", "-shared", "-fPIC", "-o", library.toString(), source.toString())
        .redirectErrorStream(true).start();
    assertThat(cc.waitFor()).as(new String(cc.getInputStream().readAllBytes())).isZero();

    EnergySensor sensor = Nvml.load(library).energySensorOf("GPU-fake-0");

    assertThat(sensor.powerMilliwatts()).isEqualTo(75_000L);
  }

  @Test
  void energySensor_noUuid_notReadSayingWhy() {
    assertThat(Nvml.energySensor(null).reads()).isFalse();
    assertThat(Nvml.energySensor(null).note()).contains("no CUDA UUID");
  }
}
