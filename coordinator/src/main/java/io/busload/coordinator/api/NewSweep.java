package io.busload.coordinator.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.fleet.Slurm;
import io.busload.coordinator.store.RunTarget;
import io.busload.kernels.Catalog;
import io.busload.kernels.SuiteOptions;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.RunRequest;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A {@code POST /api/sweeps} body, checked whole before anything is stored: the suite exists, the options
 * parse as the agent will parse them, and every target device is known.
 *
 * @param options as given (not normalised), so the agent sees what the user asked for
 */
record NewSweep(String suite, Map<String, String> options, List<RunTarget> targets) {

  /** What the validation needs to know of the fleet at this moment. */
  interface Devices {
    /** The owning agent of a known device, online or not. */
    Optional<String> agentOf(String deviceId);

    /** Devices of online agents, for {@code "all"} and for an omitted list. */
    List<String> online();

    Collection<String> known();

    /**
     * The nodes of a Slurm partition, read before parsing ({@link #slurmPartitions}).
     *
     * @throws BadInput when this coordinator has no Slurm or the partition was not read
     */
    default List<Slurm.Node> slurmNodes(String partition) {
      throw new BadInput("devices", "'" + SLURM + partition + "': this coordinator submits no Slurm jobs"
          + " (BUSLOAD_SLURM_SPOOL is unset)");
    }
  }

  static final String ALL = "all";
  /** A device entry {@code slurm:PARTITION}: every device of every node of that partition, each through a job. */
  static final String SLURM = "slurm:";

  /** The partitions a body's device list names ({@code slurm:PARTITION}), to be read from Slurm before parsing. */
  static Set<String> slurmPartitions(byte[] body) {
    Set<String> partitions = new LinkedHashSet<>();
    JsonNode devices = readBody(body).get("devices");
    if (devices != null && devices.isArray()) {
      for (JsonNode element : devices) {
        if (element.isTextual() && element.asText().startsWith(SLURM)) {
          String partition = element.asText().substring(SLURM.length());
          if (!Slurm.validName(partition)) {
            throw new BadInput("devices", "'" + element.asText() + "': a partition name is 1 to 100 letters, digits,"
                + " '.', '_' or '-'");
          }
          partitions.add(partition);
        }
      }
    }
    return partitions;
  }

  static NewSweep parse(byte[] body, Devices devices) {
    JsonNode root = readBody(body);
    String suite = suite(root.get("suite"));
    int kernels = kernelsOf(suite);
    Map<String, String> options = options(root.get("options"));
    List<String> deviceIds = devices(root.get("devices"), devices);
    Map<String, RunTarget> targets = new java.util.LinkedHashMap<>();
    for (String id : deviceIds) {
      if (id.startsWith(SLURM)) {
        String partition = id.substring(SLURM.length());
        for (Slurm.Node node : devices.slurmNodes(partition)) {
          node.deviceIds().forEach(d -> targets.putIfAbsent(d, new RunTarget(d, node.name(), kernels, partition)));
        }
      } else {
        targets.putIfAbsent(id, new RunTarget(id, devices.agentOf(id).orElseThrow(), kernels));
      }
    }
    return new NewSweep(suite, options, List.copyOf(targets.values()));
  }

  static JsonNode readBody(byte[] body) {
    if (body == null || body.length == 0) {
      throw new BadInput("body", "empty body; expected a JSON object such as {\"suite\":\"stride\"}");
    }
    JsonNode root;
    try {
      root = JsonCodec.MAPPER.readTree(body);
    } catch (JsonProcessingException e) {
      throw new BadInput("body", "malformed JSON: " + e.getOriginalMessage());
    } catch (java.io.IOException e) {
      throw new BadInput("body", "unreadable body: " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw new BadInput("body", "expected a JSON object");
    }
    return root;
  }

  static String suite(JsonNode node) {
    if (node == null || node.isNull()) {
      throw new BadInput("suite", "missing; known: " + String.join(", ", Catalog.suiteNames()));
    }
    if (!node.isTextual()) {
      throw new BadInput("suite", "must be a string; known: " + String.join(", ", Catalog.suiteNames()));
    }
    return node.asText();
  }

  /** One result per kernel case: the run's total until its agent reports its own. */
  static int kernelsOf(String suite) {
    try {
      return Catalog.cases(suite).size();
    } catch (IllegalArgumentException e) {
      throw new BadInput("suite", e.getMessage());
    }
  }

  static Map<String, String> options(JsonNode node) {
    Map<String, String> options = new TreeMap<>();
    if (node == null || node.isNull()) {
      return options;
    }
    if (!node.isObject()) {
      throw new BadInput("options", "must be an object of option names to values, such as {\"elements\":\"65536\"}");
    }
    for (Map.Entry<String, JsonNode> option : node.properties()) {
      JsonNode value = option.getValue();
      if (!value.isValueNode() || value.isNull()) {
        throw new BadInput("options." + option.getKey(), "must be a string, number or boolean");
      }
      options.put(option.getKey(), value.asText());
    }
    try {
      // profile is the run's option, not the suite's (RunRequest.PROFILE): checked here, passed on to the agent.
      RunRequest.profile(options);
      SuiteOptions.parse(RunRequest.suiteOptions(options));
    } catch (IllegalArgumentException e) {
      throw new BadInput("options." + optionNamed(e.getMessage(), options.keySet()), e.getMessage());
    }
    return options;
  }

  /** SuiteOptions' messages start with the option's name; the longest given name that starts it is the one. */
  static String optionNamed(String message, Set<String> names) {
    String text = message == null ? "" : message;
    return names.stream()
        .filter(n -> text.startsWith(n)
            && (text.length() == n.length() || !isNameChar(text.charAt(n.length()))))
        .max((a, b) -> Integer.compare(a.length(), b.length()))
        .orElseGet(() -> {
          int end = 0;
          while (end < text.length() && isNameChar(text.charAt(end))) {
            end++;
          }
          return end == 0 ? "?" : text.substring(0, end);
        });
  }

  private static boolean isNameChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '-' || c == '.';
  }

  private static List<String> devices(JsonNode node, Devices devices) {
    Function<String, List<String>> onlineOrRefuse = why -> {
      List<String> online = devices.online();
      if (online.isEmpty()) {
        throw new BadInput("devices", why + " means every online device, and none is online");
      }
      return online;
    };
    if (node == null || node.isNull()) {
      return onlineOrRefuse.apply("an omitted device list");
    }
    if (!node.isArray()) {
      throw new BadInput("devices", "must be an array of device ids, such as [\"host/cpu\"], [\"slurm:PARTITION\"]"
          + " or [\"all\"]");
    }
    Set<String> ids = new LinkedHashSet<>();
    for (JsonNode element : node) {
      if (!element.isTextual() || element.asText().isBlank()) {
        throw new BadInput("devices", "every device must be a non-empty string");
      }
      ids.add(element.asText());
    }
    if (ids.isEmpty()) {
      throw new BadInput("devices", "no device given; name devices, or [\"all\"] for every online device");
    }
    if (ids.equals(Set.of(ALL))) {
      return onlineOrRefuse.apply("[\"all\"]");
    }
    for (String id : ids) {
      if (!id.startsWith(SLURM) && devices.agentOf(id).isEmpty()) {
        throw new BadInput("devices", "unknown device '" + id + "'; known: "
            + (devices.known().isEmpty() ? "none" : String.join(", ", devices.known())));
      }
    }
    return List.copyOf(ids);
  }
}
