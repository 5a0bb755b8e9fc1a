package io.busload.dashboard.compare.ui;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.dashboard.coordinator.Device;
import java.util.List;
import org.junit.jupiter.api.Test;

class ComparePickerTest {
  private static Device device(String id, String model, String fingerprint) {
    return new Device(id, null, "vm", model, fingerprint, false, null, null, List.of());
  }

  @Test
  void firstSelection_distinctIds_selectsDevices() {
    assertThat(ComparePicker.firstSelection(List.of(device("a/cuda:0", "NVIDIA H100 80GB HBM3", "f1"),
        device("b/cuda:0", "NVIDIA H200", "f2")))).containsExactly("device: a/cuda:0", "device: b/cuda:0");
  }

  @Test
  void firstSelection_oneIdTwoModels_selectsTheModels() {
    assertThat(ComparePicker.firstSelection(List.of(device("vm/cuda:0", "NVIDIA H100 80GB HBM3", "f1"),
        device("vm/cuda:0", "NVIDIA H200", "f2"), device("c/cuda:0", "NVIDIA H200", "f3"))))
        .containsExactly("device: c/cuda:0", "model: NVIDIA H100 80GB HBM3", "model: NVIDIA H200");
  }
}
