package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.tuple;

import io.busload.coordinator.fleet.Slurm;
import io.busload.coordinator.store.RunTarget;
import io.busload.protocol.JsonCodec;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NewSweepTest {
  @Test
  void optionNamed_messageStartsWithGivenName_returnsThatName() {
    assertThat(NewSweep.optionNamed("elements: must be a positive integer", Set.of("elements", "elem")))
        .isEqualTo("elements");
  }

  @Test
  void optionNamed_nameNotAmongGiven_takesTheLeadingWord() {
    assertThat(NewSweep.optionNamed("warp_size: unknown option", Set.of())).isEqualTo("warp_size");
  }

  @Test
  void options_profileRunOption_acceptedBesideSuiteOptionsAndPassedOn() throws Exception {
    Map<String, String> options = NewSweep.options(JsonCodec.MAPPER.readTree("{\"profile\":true,\"size\":\"4096\"}"));

    assertThat(options).containsExactly(Map.entry("profile", "true"), Map.entry("size", "4096"));
  }

  @Test
  void options_profileNotABoolean_refusedNamingIt() {
    assertThatThrownBy(() -> NewSweep.options(JsonCodec.MAPPER.readTree("{\"profile\":\"often\"}")))
        .isInstanceOf(BadInput.class).hasMessageContaining("profile: must be true or false");
  }

  private static NewSweep.Devices fleet(java.util.Optional<java.util.List<Slurm.Node>> slurm) {
    return new NewSweep.Devices() {
      @Override
      public java.util.Optional<String> agentOf(String deviceId) {
        return "h1/cpu".equals(deviceId) ? java.util.Optional.of("h1") : java.util.Optional.empty();
      }

      @Override
      public java.util.List<String> online() {
        return java.util.List.of("h1/cpu");
      }

      @Override
      public java.util.Collection<String> known() {
        return java.util.List.of("h1/cpu");
      }

      @Override
      public java.util.List<Slurm.Node> slurmNodes(String partition) {
        return slurm.orElseGet(() -> NewSweep.Devices.super.slurmNodes(partition));
      }
    };
  }

  @Test
  void parse_slurmPartitionBesideADevice_oneRunPerNodeDeviceThroughThePartition() {
    byte[] body = "{\"suite\":\"stride\",\"devices\":[\"h1/cpu\",\"slurm:gpu\"]}".getBytes(UTF_8);
    NewSweep sweep = NewSweep.parse(body, fleet(java.util.Optional.of(java.util.List.of(new Slurm.Node("n1", 2),
        new Slurm.Node("n2", 0)))));

    assertThat(NewSweep.slurmPartitions(body)).containsExactly("gpu");
    assertThat(sweep.targets()).extracting(RunTarget::deviceId, RunTarget::agentId, RunTarget::slurmPartition)
        .containsExactly(tuple("h1/cpu", "h1", null), tuple("n1/cuda:0", "n1", "gpu"), tuple("n1/cuda:1", "n1", "gpu"),
            tuple("n2/cpu", "n2", "gpu"));
  }

  @Test
  void parse_slurmPartitionWithoutSlurm_refusedNamingDevices() {
    byte[] body = "{\"suite\":\"stride\",\"devices\":[\"slurm:gpu\"]}".getBytes(UTF_8);

    assertThatThrownBy(() -> NewSweep.parse(body, fleet(java.util.Optional.empty())))
        .isInstanceOf(BadInput.class).hasMessageContaining("BUSLOAD_SLURM_SPOOL is unset")
        .extracting(e -> ((BadInput) e).field()).isEqualTo("devices");
  }

  @Test
  void slurmPartitions_nameThatIsNoSlurmName_refusedBeforeSlurmIsAsked() {
    byte[] body = "{\"suite\":\"stride\",\"devices\":[\"slurm:gpu --uid=0\"]}".getBytes(UTF_8);

    assertThatThrownBy(() -> NewSweep.slurmPartitions(body)).isInstanceOf(BadInput.class)
        .hasMessageContaining("partition name");
  }
}
