package io.busload.protocol;

import java.time.Instant;
import java.util.List;

/**
 * What a TLS cluster member (an agent on the cluster path, a dashboard) runs its event bus on: its own certificate
 * and the CAs it trusts. Coordinators see the certificates of bridge agents in each handshake, but not those of
 * members that talk to them through the cluster; members say them at join and every hour
 * ({@link Addresses#MEMBER_CERTIFICATES}). What a member says is what it loaded: a certificate renewed on disk but
 * not yet loaded (cluster members take renewals at restart) still expires as said.
 *
 * @param role the member's cluster role ({@code agent}, {@code dashboard})
 * @param member the member's host, as it joined
 * @param certificates its own certificate first, then the CAs it trusts
 * @param sentAt when the member said it
 */
public record MemberCertificates(int schemaVersion, String role, String member, List<Certificate> certificates,
    Instant sentAt) implements Protocol.Message {

  public MemberCertificates {
    certificates = certificates == null ? List.of() : List.copyOf(certificates);
  }

  /**
   * One certificate as the expiry watch needs it.
   *
   * @param role what it is: the member's role for its own, {@code CA} for an authority
   * @param subject its subject's distinguished name
   * @param serial its serial number in hex
   * @param notAfter when it expires
   */
  public record Certificate(String role, String subject, String serial, Instant notAfter) {}
}
