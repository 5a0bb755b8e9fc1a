package io.busload.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The systemd units of deploy/systemd keep their hardening: each service gets its own /tmp (the JVM's temp
 * directory, where libraries unpack what they run), no new privileges and no capabilities; the coordinator and the
 * dashboard see the file system read-only but for their state, no home folders and no physical devices. The agent
 * keeps /dev (its GPUs) and its user's home (its outbox).
 */
class SystemdUnitsTest {
  private static final Path UNITS = Path.of("systemd");

  /** The [Service] section's settings; a key given twice keeps its last value, as systemd reads it. */
  private static Map<String, String> service(String unit) throws Exception {
    Map<String, String> settings = new HashMap<>();
    String section = "";
    for (String line : Files.readAllLines(UNITS.resolve(unit))) {
      String trimmed = line.strip();
      if (trimmed.startsWith("[")) {
        section = trimmed;
      } else if (section.equals("[Service]") && !trimmed.startsWith("#") && trimmed.contains("=")) {
        settings.put(trimmed.substring(0, trimmed.indexOf('=')), trimmed.substring(trimmed.indexOf('=') + 1));
      }
    }
    return settings;
  }

  @Test
  void everyUnit_hardened_ownTmpNoNewPrivilegesNoCapabilities() throws Exception {
    for (String unit : List.of("busload-coordinator.service", "busload-dashboard.service", "busload-agent.service")) {
      Map<String, String> service = service(unit);

      assertThat(service).as(unit).containsEntry("PrivateTmp", "yes").containsEntry("NoNewPrivileges", "yes")
          .containsEntry("CapabilityBoundingSet", "").containsEntry("RestrictSUIDSGID", "yes")
          .containsEntry("ProtectKernelTunables", "yes").containsEntry("ProtectKernelModules", "yes")
          .containsEntry("ProtectControlGroups", "yes").containsEntry("UMask", "0077")
          .containsEntry("User", "busload");
      assertThat(service.get("RestrictAddressFamilies")).as(unit).isNotBlank().doesNotContain("AF_PACKET");
      assertThat(service.get("ProtectSystem")).as(unit).isIn("strict", "full");
    }
  }

  @Test
  void coordinator_readOnlyButItsDataFolderNoHomeNoDevices() throws Exception {
    Map<String, String> service = service("busload-coordinator.service");

    assertThat(service).containsEntry("ProtectSystem", "strict").containsEntry("ProtectHome", "yes")
        .containsEntry("PrivateDevices", "yes").containsEntry("Environment", "BUSLOAD_FIRST_API_TOKEN_FILE="
            + "/var/lib/busload/first-api-token");
    assertThat(service.get("ReadWritePaths")).isEqualTo("/var/lib/busload");
    assertThat(Files.readString(UNITS.resolve("busload-coordinator.service")))
        .contains("Environment=BUSLOAD_DATA=/var/lib/busload");
  }

  @Test
  void dashboard_readOnlyNoHomeNoDevices() throws Exception {
    assertThat(service("busload-dashboard.service")).containsEntry("ProtectSystem", "strict")
        .containsEntry("ProtectHome", "yes").containsEntry("PrivateDevices", "yes");
  }

  @Test
  void agent_keepsItsGpusAndItsOutbox() throws Exception {
    Map<String, String> service = service("busload-agent.service");

    assertThat(service).doesNotContainKey("PrivateDevices").doesNotContainKey("ProtectHome")
        .doesNotContainKey("DevicePolicy");
  }
}
