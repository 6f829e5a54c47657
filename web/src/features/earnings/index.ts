export { useHasListedAgent } from './hooks/use-has-listed-agent';
