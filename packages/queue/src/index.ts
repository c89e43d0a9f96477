// Public API of @baton/queue. Keep exports explicit.
export const PACKAGE_NAME = '@baton/queue';
