package io.busload.dashboard.security;

import com.vaadin.flow.spring.security.AuthenticationContext;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.stereotype.Service;

/** The server-side check before anything that changes the fleet: a logged-in OPERATOR or ADMIN. */
@Service
public class WriteAccess {
  private final AuthenticationContext authentication;

  public WriteAccess(AuthenticationContext authentication) {
    this.authentication = authentication;
  }

  public boolean allowed() {
    return authentication.isAuthenticated() && authentication.hasAnyRole(UserFile.OPERATOR, UserFile.ADMIN);
  }

  /** @throws AccessDeniedException naming {@code what}, in words a view can show */
  public void require(String what) {
    if (!allowed()) {
      throw new AccessDeniedException(authentication.isAuthenticated()
          ? "refused: " + what + " needs role OPERATOR or ADMIN"
          : "refused: log in to " + what);
    }
  }

  public String userName() {
    return authentication.getPrincipalName().orElse(null);
  }

  public void logout() {
    authentication.logout();
  }
}
