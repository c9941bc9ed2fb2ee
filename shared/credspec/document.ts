/** One entry of `ActiveDirectoryConfig.GroupManagedServiceAccounts`: the gMSA account name and its domain. */
export interface GroupManagedServiceAccount {
  Name: string;
  Scope: string;
}

/** How a node that is not joined to the domain fetches the gMSA password (Container Credential Guard plugin). */
export interface HostAccountConfig {
  PortableCcgVersion: string;
  PluginGUID: string;
  /** Plugin-specific; may be a secret store reference or credentials. Never log it. */
  PluginInput: string;
}

/** The credential spec JSON that Windows' `New-CredentialSpec` writes, as far as this tool checks it. */
export interface CredSpecDocument {
  CmsPlugins: string[];
  DomainJoinConfig: {
    Sid: string;
    MachineAccountName: string;
    Guid: string;
    DnsTreeName: string;
    DnsName: string;
    NetBiosName: string;
  };
  ActiveDirectoryConfig: {
    GroupManagedServiceAccounts: GroupManagedServiceAccount[];
    HostAccountConfig?: HostAccountConfig;
  };
}
