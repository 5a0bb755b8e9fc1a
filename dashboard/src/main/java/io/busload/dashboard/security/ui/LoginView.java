package io.busload.dashboard.security.ui;

import com.vaadin.flow.component.login.LoginForm;
import com.vaadin.flow.component.login.LoginI18n;
import com.vaadin.flow.component.orderedlayout.VerticalLayout;
import com.vaadin.flow.router.BeforeEnterEvent;
import com.vaadin.flow.router.BeforeEnterObserver;
import com.vaadin.flow.router.PageTitle;
import com.vaadin.flow.router.Route;
import com.vaadin.flow.server.VaadinServletRequest;
import com.vaadin.flow.server.auth.AnonymousAllowed;
import io.busload.dashboard.security.LoginThrottle;
import jakarta.servlet.http.HttpSession;
import org.springframework.security.web.WebAttributes;

/**
 * Spring Security's form login, posted to {@code /login}; viewing needs none of it. A login refused by
 * {@link LoginThrottle} shows its own message (how long to wait) instead of "incorrect username or password".
 */
@Route("login")
@PageTitle("Log in | Busload")
@AnonymousAllowed
public class LoginView extends VerticalLayout implements BeforeEnterObserver {
  private final LoginForm form = new LoginForm();

  public LoginView() {
    form.setAction("login");
    form.setForgotPasswordButtonVisible(false);
    setSizeFull();
    setAlignItems(Alignment.CENTER);
    setJustifyContentMode(JustifyContentMode.CENTER);
    add(form);
  }

  @Override
  public void beforeEnter(BeforeEnterEvent event) {
    boolean error = event.getLocation().getQueryParameters().getParameters().containsKey("error");
    if (error && lastFailure() instanceof LoginThrottle.Throttled throttled) {
      LoginI18n i18n = LoginI18n.createDefault();
      i18n.getErrorMessage().setTitle("Too many failed logins");
      i18n.getErrorMessage().setMessage(throttled.getMessage());
      form.setI18n(i18n);
    }
    form.setError(error);
  }

  /** Why the last login of this session failed, as Spring Security's failure handler left it in the session. */
  private static Object lastFailure() {
    VaadinServletRequest request = VaadinServletRequest.getCurrent();
    HttpSession session = request == null ? null : request.getHttpServletRequest().getSession(false);
    return session == null ? null : session.getAttribute(WebAttributes.AUTHENTICATION_EXCEPTION);
  }
}
