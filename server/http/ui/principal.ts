/** Who a UI session belongs to. */
export interface UiPrincipal {
  name: string;
  /** How the owner proved who they are. */
  via: 'app-token' | 'eventlog-admin' | 'social-owner';
  /** Signed in with the public default password: only changing it is allowed until then. */
  mustChangePassword?: boolean;
}
