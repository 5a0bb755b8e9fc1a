package io.busload.deploy;

import static io.busload.deploy.NetnsPair.must;
import static io.busload.deploy.NetnsPair.run;

import java.io.IOException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Three network namespaces for a split brain: a hub holding a Linux bridge, and two sites "a" and "b",
 * each joined to the bridge by a veth pair, all on one private /24 that exists only inside these namespaces (the
 * machine's own interfaces, routes and firewall are never touched). The hub holds the shared PostgreSQL. The split
 * is a blackhole route to the other site inside each site, so a and b cannot reach each other while both still
 * reach the hub; the heal deletes those routes. Deleting the namespaces removes the bridge and the veth pairs.
 */
final class SplitNet implements AutoCloseable {
  final String hubNs;
  final String aNs;
  final String bNs;
  final String hubIp;
  final String aIp;
  final String bIp;
  private final String bridge;
  private final String hubA;
  private final String siteA;
  private final String hubB;
  private final String siteB;
  private boolean created;

  SplitNet() {
    String tag = UUID.randomUUID().toString().substring(0, 6);
    hubNs = "busload-h-" + tag;
    aNs = "busload-sa-" + tag;
    bNs = "busload-sb-" + tag;
    // Interface names are at most 15 characters.
    bridge = "blbr" + tag;
    hubA = "blha" + tag;
    siteA = "blsa" + tag;
    hubB = "blhb" + tag;
    siteB = "blsb" + tag;
    int subnet = ThreadLocalRandom.current().nextInt(1, 255);
    hubIp = "10.214." + subnet + ".1";
    aIp = "10.214." + subnet + ".2";
    bIp = "10.214." + subnet + ".3";
  }

  void create() throws IOException, InterruptedException {
    created = true;
    for (String ns : List.of(hubNs, aNs, bNs)) {
      must("ip", "netns", "add", ns);
      must("ip", "-n", ns, "link", "set", "lo", "up");
    }
    must("ip", "-n", hubNs, "link", "add", bridge, "type", "bridge");
    must("ip", "-n", hubNs, "addr", "add", hubIp + "/24", "dev", bridge);
    must("ip", "-n", hubNs, "link", "set", bridge, "up");
    leg(hubA, siteA, aNs, aIp);
    leg(hubB, siteB, bNs, bIp);
  }

  private void leg(String hubEnd, String siteEnd, String siteNs, String siteIp)
      throws IOException, InterruptedException {
    must("ip", "link", "add", hubEnd, "type", "veth", "peer", "name", siteEnd);
    must("ip", "link", "set", hubEnd, "netns", hubNs);
    must("ip", "link", "set", siteEnd, "netns", siteNs);
    must("ip", "-n", hubNs, "link", "set", hubEnd, "master", bridge);
    must("ip", "-n", hubNs, "link", "set", hubEnd, "up");
    must("ip", "-n", siteNs, "addr", "add", siteIp + "/24", "dev", siteEnd);
    must("ip", "-n", siteNs, "link", "set", siteEnd, "up");
  }

  /** a and b lose each other; both keep the hub. */
  void split() throws IOException, InterruptedException {
    must("ip", "-n", aNs, "route", "add", "blackhole", bIp + "/32");
    must("ip", "-n", bNs, "route", "add", "blackhole", aIp + "/32");
  }

  void heal() throws IOException, InterruptedException {
    must("ip", "-n", aNs, "route", "del", "blackhole", bIp + "/32");
    must("ip", "-n", bNs, "route", "del", "blackhole", aIp + "/32");
  }

  @Override
  public void close() throws IOException, InterruptedException {
    if (!created) {
      return;
    }
    // Deleting a namespace destroys the veth ends inside it, and with them their peers; the bridge goes with the hub.
    for (String ns : List.of(aNs, bNs, hubNs)) {
      run(List.of("ip", "netns", "del", ns));
    }
  }
}
