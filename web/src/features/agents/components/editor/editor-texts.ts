/** The agent editor's texts of issue 29 (exact: the tests and the e2e suite read them). */
export const EDITOR_TEXTS = {
  discardTitle: 'Discard unsaved changes?',
  discardBody: 'Your changes to this agent have not been saved.',
  keepEditing: 'Keep editing',
  discard: 'Discard',
  restoreTitle: 'Restore your unsaved draft?',
  restoreBody: (when: string) => `Instructions you had not saved${when ? ` (${when})` : ''} were kept on this device.`,
  restore: 'Restore',
  dismiss: 'Dismiss',
  notFoundTitle: 'Agent not found',
  notFoundBody: 'This agent does not exist, or it is not one of yours.',
  deleteHeading: 'Delete agent',
  deleteBody:
    "Deleting the agent removes its documents, API keys, subscriptions and conversations. Its e-mail address is never reused. This can't be undone.",
  deleteButton: 'Delete agent',
  deleteConfirmTitle: (name: string) => `Delete ${name}?`,
  deleteConfirmLabel: (name: string) => `Type ${name} to confirm`,
  deleting: 'Deleting...',
  deletedTitle: 'Agent deleted',
  deletedBody: (name: string) => `${name} has been deleted.`,
  deleteFailed: 'Failed to delete agent.',
  cancel: 'Cancel',
} as const;
