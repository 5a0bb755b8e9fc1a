package io.busload.agent.device;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HostActivityTest {
  private final HostActivity host = new HostActivity();

  @Test
  void window_otherBusyThroughout_namedAndSelfNever() {
    try (HostActivity.Busy self = host.busy("h/cuda:0"); HostActivity.Busy other = host.busy("h/cuda:1")) {
      HostActivity.Window window = host.window("h/cuda:0");
      assertThat(window.othersBusy()).containsExactly("h/cuda:1");
    }
  }

  @Test
  void window_otherStartsAndEndsInside_namedAfterItEnded() {
    HostActivity.Window window = host.window("h/cuda:0");
    host.busy("h/cuda:2").close();
    host.busy("h/cuda:1").close();
    assertThat(window.othersBusy()).containsExactly("h/cuda:1", "h/cuda:2");
  }

  @Test
  void window_otherEndedBeforeItOpened_notNamed() {
    host.busy("h/cuda:1").close();
    HostActivity.Window window = host.window("h/cuda:0");
    assertThat(window.othersBusy()).isEmpty();
  }

  @Test
  void window_otherStartsAfterItOpenedAndStillRuns_named() {
    HostActivity.Window window = host.window("h/cuda:0");
    try (HostActivity.Busy other = host.busy("h/cuda:1")) {
      assertThat(window.othersBusy()).containsExactly("h/cuda:1");
    }
  }
}
