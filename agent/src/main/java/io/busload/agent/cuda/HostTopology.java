package io.busload.agent.cuda;

import io.busload.agent.cuda.nvml.Nvml;
import io.busload.protocol.Topology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_P2PAttribute;
import jcuda.driver.JCudaDriver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each GPU's place in its host, where it is cheap to read: the PCIe link from sysfs (the GPU's end and
 * its upstream port's), the NUMA node from sysfs, each pair's peer access and rank from the driver
 * ({@code cuDeviceGetP2PAttribute}), and whether a pair is NVLink from NVML's active links, else from
 * {@code nvidia-smi topo -m}. Anything missing
 * reads as unknown; discovery never fails for it.
 */
final class HostTopology {
  private static final Logger LOG = LoggerFactory.getLogger(HostTopology.class);
  private static final Pattern SPEED = Pattern.compile("([0-9.]+)\\s*GT/s");

  private HostTopology() {}

  /**
   * The topology of GPU {@code ordinal} among {@code devices}, with {@code topo} from {@link #nvidiaSmiTopo()} and
   * each GPU's NVLinks from NVML ({@code nvlinks}, by ordinal; empty where NVML could not say).
   */
  static Topology of(int ordinal, List<CUdevice> devices, Map<String, String> topo,
      List<Optional<Nvml.NvLinks>> nvlinks) {
    String bus = busId(devices.get(ordinal));
    Path sysfs = Path.of("/sys/bus/pci/devices", bus);
    Topology pcie = pcie(sysfs, bus);
    List<Topology.Peer> peers = new ArrayList<>();
    boolean fromNvml = false;
    for (int other = 0; other < devices.size(); other++) {
      if (other != ordinal) {
        int links = nvlinksBetween(nvlinks.get(ordinal), nvlinks.get(other), busId(devices.get(other)));
        fromNvml |= links >= 0;
        peers.add(peer(ordinal, other, devices, detail(links, topo.getOrDefault(ordinal + "," + other, ""))));
      }
    }
    return new Topology(pcie.pcieGeneration(), pcie.pcieWidth(), pcie.pcieCurrentGeneration(),
        pcie.pcieCurrentWidth(), pcie.numaNode(), peers, pcie.source() + (peers.isEmpty() ? ""
            : fromNvml ? "; NVLinks from NVML's active links" : "; pairs from nvidia-smi topo -m"));
  }

  /**
   * The active NVLinks joining a GPU to the one at {@code otherBus} as NVML reports them: the links straight to it;
   * else, when both GPUs have links up to NVSwitches (an NVSwitch fabric joins every GPU on it), the fewer of the
   * two; 0 when neither; -1 when NVML did not say for one of them.
   */
  static int nvlinksBetween(Optional<Nvml.NvLinks> self, Optional<Nvml.NvLinks> other, String otherBus) {
    if (self.isEmpty() || other.isEmpty()) {
      return -1;
    }
    int direct = self.get().toGpus().getOrDefault(otherBus, 0);
    if (direct > 0) {
      return direct;
    }
    return Math.min(self.get().toSwitches(), other.get().toSwitches());
  }

  /**
   * A pair's detail as {@link Topology.Peer} records it: {@code NV<links>} when NVML counts active NVLinks, which
   * wins over nvidia-smi (a link that went down shows at once); nvidia-smi's PCIe kind when NVML counts none; and
   * nvidia-smi's cell alone when NVML did not say ({@code links} -1).
   */
  static String detail(int links, String smi) {
    if (links > 0) {
      return "NV" + links;
    }
    if (links == 0 && smi.startsWith("NV")) {
      return ""; // nvidia-smi's bonded links are not up: the pair is not NVLink now, and its path is not known here
    }
    return smi;
  }

  /** sysfs's spelling of the driver's bus id: lowercase, four-digit domain ({@code 0000:17:00.0}). */
  static String busId(CUdevice device) {
    String[] id = new String[1];
    Cuda.check(JCudaDriver.cuDeviceGetPCIBusId(id, 64, device), "cuDeviceGetPCIBusId");
    return sysfsName(id[0]);
  }

  static String sysfsName(String busId) {
    String lower = busId.trim().toLowerCase(Locale.ROOT);
    return lower.matches("^0000[0-9a-f]{4}:.*") ? lower.substring(4) : lower;
  }

  /**
   * The PCIe link of the device at {@code device} (a sysfs PCI device folder): its generation and width are the
   * lower of its own maximum and its upstream port's (the folder above it), since a link trains to the slower end.
   */
  static Topology pcie(Path device, String bus) {
    int generation = generation(read(device, "max_link_speed"));
    int width = number(read(device, "max_link_width"));
    Path port = resolved(device).getParent();
    if (port != null && Files.exists(port.resolve("max_link_speed"))) {
      int portGeneration = generation(read(port, "max_link_speed"));
      int portWidth = number(read(port, "max_link_width"));
      generation = portGeneration > 0 && generation > 0 ? Math.min(generation, portGeneration) : generation;
      width = portWidth > 0 && width > 0 ? Math.min(width, portWidth) : width;
    }
    String numa = read(device, "numa_node");
    return new Topology(generation, width, generation(read(device, "current_link_speed")),
        number(read(device, "current_link_width")), numa.isEmpty() ? -1 : number(numa), List.of(),
        "sysfs " + device + (port != null ? " and its upstream port" : ""));
  }

  private static Path resolved(Path device) {
    try {
      return device.toRealPath();
    } catch (IOException e) {
      return device;
    }
  }

  /** "32.0 GT/s PCIe" -> 5; 0 when unknown. */
  static int generation(String speed) {
    Matcher m = SPEED.matcher(speed);
    if (!m.find()) {
      return 0;
    }
    double rate = Double.parseDouble(m.group(1));
    return rate >= 64 ? 6 : rate >= 32 ? 5 : rate >= 16 ? 4 : rate >= 8 ? 3 : rate >= 5 ? 2 : rate >= 2.5 ? 1 : 0;
  }

  private static int number(String text) {
    try {
      return Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static String read(Path folder, String file) {
    try {
      return Files.readString(folder.resolve(file)).trim();
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }

  private static Topology.Peer peer(int ordinal, int other, List<CUdevice> devices, String detail) {
    int[] there = new int[1];
    int[] back = new int[1];
    int[] rank = {-1};
    Cuda.check(JCudaDriver.cuDeviceCanAccessPeer(there, devices.get(ordinal), devices.get(other)),
        "cuDeviceCanAccessPeer", "cuda:" + ordinal, "cuda:" + other);
    Cuda.check(JCudaDriver.cuDeviceCanAccessPeer(back, devices.get(other), devices.get(ordinal)),
        "cuDeviceCanAccessPeer", "cuda:" + other, "cuda:" + ordinal);
    if (JCudaDriver.cuDeviceGetP2PAttribute(rank, CUdevice_P2PAttribute.CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK,
        devices.get(ordinal), devices.get(other)) != 0) {
      rank[0] = -1;
    }
    return new Topology.Peer(other, there[0] != 0 && back[0] != 0, rank[0], link(detail), detail);
  }

  /** {@code NV18} -> nvlink, {@code PIX}/{@code PXB}/{@code PHB}/{@code NODE}/{@code SYS} -> pcie, else unknown. */
  static String link(String detail) {
    if (detail.startsWith("NV")) {
      return "nvlink";
    }
    return switch (detail) {
      case "PIX", "PXB", "PHB", "NODE", "SYS" -> "pcie";
      default -> "unknown";
    };
  }

  private static final java.util.regex.Pattern ANSI_ESCAPE = java.util.regex.Pattern.compile("\u001B\\[[0-9;]*m");

  /** {@code nvidia-smi topo -m}'s GPU x GPU cells as {@code "i,j" -> cell}; empty without nvidia-smi. */
  static Map<String, String> nvidiaSmiTopo() {
    try {
      return parseTopo(GpuConditions.run("nvidia-smi", "topo", "-m"));
    } catch (IOException | RuntimeException e) {
      LOG.info("nvidia-smi topo -m not read ({}); GPU pairs recorded without their link kind", e.getMessage());
      return Map.of();
    }
  }

  /**
   * The matrix's GPU rows: a header naming {@code GPU0 GPU1 ...} (then NICs, CPU affinity, ...), one row per GPU
   * whose first cells follow the header's GPU columns.
   */
  static Map<String, String> parseTopo(List<String> lines) {
    Map<String, String> cells = new HashMap<>();
    List<String> columns = null;
    for (String line : lines) {
      // nvidia-smi underlines the header with terminal escapes even into a pipe; left in, they hid the header and the
      // GPU0 row was read as one, so GPU0 lost every cell of its own row (seen on two NVLink-joined H200s).
      String[] t = ANSI_ESCAPE.matcher(line).replaceAll("").trim().split("\\s+");
      if (columns == null) {
        if (t.length > 1 && t[0].equals("GPU0") && !t[1].equals("X")) {
          columns = List.of(t);
        }
        continue;
      }
      if (!t[0].matches("GPU\\d+")) {
        continue;
      }
      int row = Integer.parseInt(t[0].substring(3));
      for (int c = 0; c < columns.size() && c + 1 < t.length; c++) {
        if (columns.get(c).matches("GPU\\d+")) {
          cells.put(row + "," + columns.get(c).substring(3), t[c + 1]);
        }
      }
    }
    return cells;
  }
}
