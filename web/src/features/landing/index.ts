export { Icon } from './components/Icon';
export { copyright } from './content';
