// Fails loudly when a script would run on a Node older than 24.
// npm puts node_modules/.bin first on PATH, so after `npm install` every npm script gets the
// Node 24 that the `node` devDependency provides; a bare shell may still have an older one.
const [major] = process.versions.node.split('.').map(Number);
if (major < 24 || process.features?.typescript !== 'strip') {
  console.error(
    `\nRookery needs Node 24 or newer (it runs TypeScript by type stripping and uses node:sqlite).\n` +
      `This is Node ${process.version} at ${process.execPath}.\n` +
      `Run \`npm install\` first (it brings Node 24 as a dev dependency), then use the npm scripts:\n` +
      `  npm start   npm test   npm run rookery -- --help\n`,
  );
  process.exit(1);
}
