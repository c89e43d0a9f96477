export const PACKAGE_NAME = '@baton/packets';
