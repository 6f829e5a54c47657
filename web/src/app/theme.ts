import type { ThemeConfig } from 'antd';

/** Orange brand darkened to pass WCAG AA (4.5:1) with white text and as link colour on white. */
export const theme: ThemeConfig = {
  token: {
    colorPrimary: '#c2410c',
    colorLink: '#c2410c',
    // antd derives a lighter hover (#cf602d: 3.9:1 with white text); hover and press go darker instead.
    colorPrimaryHover: '#9a3412',
    colorPrimaryActive: '#7c2d12',
    colorLinkHover: '#9a3412',
    colorLinkActive: '#7c2d12',
    colorError: '#b91c1c',
    // Secondary text (descriptions, menu group titles): antd's 45 % black is 3.4:1 on white; 65 % is 7:1.
    colorTextDescription: 'rgba(0, 0, 0, 0.65)',
    borderRadius: 8,
    fontFamily:
      "Inter, system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Noto Sans', sans-serif",
  },
  components: {
    // An unchecked switch is drawn in 25 % black (1.8:1 against its white text and handle);
    // 60 % black is 5.7:1. Hover uses the tertiary colour.
    Switch: { colorTextQuaternary: 'rgba(0, 0, 0, 0.6)', colorTextTertiary: 'rgba(0, 0, 0, 0.7)' },
    // Empty tables and lists say "No data" in the disabled colour (1.8:1); it is text to read.
    Table: { colorTextDisabled: 'rgba(0, 0, 0, 0.6)' },
    Empty: { colorTextDisabled: 'rgba(0, 0, 0, 0.6)' },
  },
};
