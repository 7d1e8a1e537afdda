// Finds promises nobody waits for: a call whose result is a promise, used as a statement
// without `await`, `void` or `return`. The storage port is async, so a forgotten `await` on a
// write would let the caller answer before the write happened (or hide its error); tsc does
// not catch that. Prints each one as file:line and exits 1 when there are any.
import { dirname, relative } from 'node:path';
import ts from 'typescript';

const root = process.cwd();
const configPath = ts.findConfigFile(root, ts.sys.fileExists, 'tsconfig.json')!;
const config = ts.parseJsonConfigFileContent(
  ts.readConfigFile(configPath, ts.sys.readFile).config,
  ts.sys,
  dirname(configPath),
);
const program = ts.createProgram(config.fileNames, config.options);
const checker = program.getTypeChecker();

function isPromise(type: ts.Type): boolean {
  if (type.isUnion()) return type.types.some(isPromise);
  const then = type.getProperty('then');
  if (!then) return false;
  const thenType = checker.getTypeOfSymbol(then);
  return thenType.getCallSignatures().length > 0;
}

const found: string[] = [];
for (const file of program.getSourceFiles()) {
  if (file.isDeclarationFile || file.fileName.includes('node_modules')) continue;
  const visit = (node: ts.Node) => {
    if (ts.isExpressionStatement(node)) {
      let expression = node.expression;
      while (ts.isParenthesizedExpression(expression)) expression = expression.expression;
      // `.then(ok, failed)` and `.catch()` handle the outcome themselves.
      const handled =
        ts.isCallExpression(expression) &&
        ts.isPropertyAccessExpression(expression.expression) &&
        (expression.expression.name.text === 'catch' ||
          (expression.expression.name.text === 'then' && expression.arguments.length === 2));
      const floating =
        !handled &&
        (ts.isCallExpression(expression) || ts.isNewExpression(expression)) &&
        isPromise(checker.getTypeAtLocation(expression));
      if (floating) {
        const { line } = file.getLineAndCharacterOfPosition(node.getStart());
        found.push(`${relative(root, file.fileName)}:${line + 1}: ${node.getText().split('\n')[0]!.slice(0, 120)}`);
      }
    }
    // An async callback handed to forEach runs unawaited.
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'forEach'
    ) {
      const callback = node.arguments[0];
      if (
        callback &&
        (ts.isArrowFunction(callback) || ts.isFunctionExpression(callback)) &&
        callback.modifiers?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword)
      ) {
        const { line } = file.getLineAndCharacterOfPosition(node.getStart());
        found.push(`${relative(root, file.fileName)}:${line + 1}: async callback in forEach`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}
for (const line of found) console.log(line);
console.log(`${found.length} unawaited promise(s)`);
process.exit(found.length > 0 ? 1 : 0);
