package io.busload.protocol;

import java.util.List;

/**
 * Where a GPU sits in its host: its PCIe link, its NUMA node and how it reaches every other GPU of the
 * host. Part of the device's fingerprint as results carry it, so a link that trained slower shows beside the
 * bandwidth it explains. Read once at discovery; -1 or 0 where the host did not say.
 *
 * @param pcieGeneration the link's generation, the lower of the GPU's and its upstream port's (1..6); 0 unknown
 * @param pcieWidth lanes, the lower of the two ends' maximum widths; 0 unknown
 * @param pcieCurrentGeneration the generation it ran at when read (GPUs drop to a lower one while idle); 0 unknown
 * @param pcieCurrentWidth the lanes it ran at when read; 0 unknown
 * @param numaNode the host's NUMA node the GPU hangs off; -1 unknown or none
 * @param peers every other GPU of the host, by index
 * @param source where the figures were read, in words ({@code sysfs /sys/bus/pci/devices/0000:17:00.0})
 */
public record Topology(int pcieGeneration, int pcieWidth, int pcieCurrentGeneration, int pcieCurrentWidth,
    int numaNode, List<Peer> peers, String source) {

  public Topology {
    peers = peers == null ? List.of() : List.copyOf(peers);
  }

  /**
   * How this GPU reaches another.
   *
   * @param ordinal the other GPU's host index ({@code cuda:N})
   * @param access whether peer access works both ways ({@code cuDeviceCanAccessPeer})
   * @param performanceRank the driver's relative rank of the pair's link ({@code cuDeviceGetP2PAttribute}), higher
   *     is slower on some systems; -1 unknown
   * @param link {@code nvlink}, {@code pcie} or {@code unknown}
   * @param detail what nvidia-smi topo -m says of the pair ({@code NV18}, {@code PIX}, {@code SYS}), or empty
   */
  public record Peer(int ordinal, boolean access, int performanceRank, String link, String detail) {
    private static final java.util.regex.Pattern NVLINKS = java.util.regex.Pattern.compile("NV(\\d+)");

    /** The NVLinks bonded between the pair, as nvidia-smi counts them ({@code NV18}: 18); 0 when not NVLink. */
    public int nvlinks() {
      java.util.regex.Matcher m = NVLINKS.matcher(detail == null ? "" : detail);
      return m.matches() ? Integer.parseInt(m.group(1)) : 0;
    }
  }

  /**
   * The theoretical rate of the NVLinks joining this GPU to GPU {@code peer}, bytes per second over {@code directions}
   * (1 or 2); 0 when the pair is not NVLink or the per-link rate is not known for {@code computeCapability}.
   */
  public double nvlinkBytesPerSecond(int peer, String computeCapability, int directions) {
    return peers.stream().filter(p -> p.ordinal() == peer).findFirst()
        .map(p -> p.nvlinks() * nvlinkBytesPerSecondPerLink(computeCapability) * directions).orElse(0.0);
  }

  /**
   * One NVLink's theoretical rate in each direction, bytes per second, by the GPU's compute capability, for the
   * data-centre parts whose generation it names: 20 GB/s (NVLink 1, 6.0), 25 GB/s (NVLink 2 to 4: 7.0, 8.0, 9.0),
   * 50 GB/s (NVLink 5, 10.0). H100 and H200: 18 links x 25 GB/s = 450 GB/s each way. 0 for any other capability
   * (consumer bridges run their links at other rates), so no ceiling is drawn rather than a wrong one.
   */
  public static double nvlinkBytesPerSecondPerLink(String computeCapability) {
    return switch (computeCapability == null ? "" : computeCapability) {
      case "6.0" -> 20e9;
      case "7.0", "8.0", "9.0" -> 25e9;
      case "10.0" -> 50e9;
      default -> 0;
    };
  }

  /**
   * The PCIe link's theoretical rate in each direction, bytes per second: transfers per second per lane x
   * encoding efficiency (8b/10b to generation 2, 128b/130b to 5, 242/256 FLITs for 6) x lanes / 8. 0 when the
   * generation or width is unknown. Generation 5 x16: 63.0 GB/s.
   */
  public double pcieBytesPerSecond() {
    return pcieBytesPerSecond(pcieGeneration, pcieWidth);
  }

  public static double pcieBytesPerSecond(int generation, int width) {
    double gigatransfers = switch (generation) {
      case 1 -> 2.5;
      case 2 -> 5;
      case 3 -> 8;
      case 4 -> 16;
      case 5 -> 32;
      case 6 -> 64;
      default -> 0;
    };
    double efficiency = generation <= 2 ? 0.8 : generation <= 5 ? 128.0 / 130 : 242.0 / 256;
    return gigatransfers * 1e9 * efficiency * width / 8;
  }
}
