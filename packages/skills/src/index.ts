export const PACKAGE_NAME = '@baton/skills';
