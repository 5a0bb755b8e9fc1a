package io.busload.coordinator.api;

import static io.busload.coordinator.api.Replies.json;

import io.busload.coordinator.fleet.CertificateExpiry;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * {@code GET /api/certificates}: the fleet's certificates that expire within the warning's days (the coordinator's
 * own chain and trusted CAs, and the agent certificates its bridge has seen), soonest first, so that the dashboard
 * can show them before the day the members stop connecting. Open to readers like every read: it names subjects and
 * dates, no key material.
 *
 * @param near the certificates near expiry now (empty for a coordinator without fleet certificates)
 * @param warnBefore how long ahead of an expiry a certificate is listed
 */
public record CertificateResource(Supplier<List<CertificateExpiry.Expiring>> near, Duration warnBefore)
    implements ApiResource {
  public static final String PATH = "/api/certificates";

  /** The answer: how many days ahead the warning reaches, and the certificates within it. */
  public record Answer(long warnDays, List<CertificateExpiry.Expiring> nearExpiry) {}

  @Override
  public void mount(Mounts api) {
    api.at(PATH).get("/").handler(ctx -> json(ctx.response(), 200,
        new Answer(warnBefore.toDays(), near.get())));
  }
}
